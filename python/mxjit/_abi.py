"""ctypes mirror of include/mxjit.h (ABI 2): the public structs, enums and function signatures.

Every struct below must have the library's size (``mxjit_abi_struct_size``); ``check_layout``
compares them when the library is loaded, so a header change that this file missed fails at
import instead of corrupting arguments.
"""
from __future__ import annotations

import ctypes as C
from typing import Dict, Type

MAX_DIMS = 4

# Enums: name -> value, in header order.
DEVICES = {"auto": 0, "hip": 1, "emu": 2, "host": 3}
DTYPES = {
    "u8": 1, "i32": 2, "i64": 3, "f32": 4, "bf16": 5, "f16": 6, "e4m3": 7, "e5m2": 8,
    "e4m3fnuz": 9, "e5m2fnuz": 10, "e2m1x2": 11, "e8m0": 12,
}
SCALE_MODES = {"floor": 0, "rceil": 1, "ceil": 2, "even": 3}
SCALE_LAYOUTS = {"plain": 0, "blocked": 1, "shuffled": 2}
MX_KINDS = {"dim0": 0, "dim1": 1, "3d": 2}
BLOCKED_GROUPS = {"none": 0, "m": 1, "k": 2}
GEMM_PASSES = {"fwd": 0, "dgrad": 1, "wgrad": 2}
B_LAYOUTS = {"nk": 0, "kn": 1}
BINDINGS = {"current": 0, "ordinal": 1}
JIT_MODES = {"on": 0, "never": 1}
OPS = {
    "scaled_copy": 1, "mxfp8_quantize": 2, "mxfp4_quantize": 3, "to_blocked": 4,
    "e8m0_shuffle": 5, "shuffle_weight": 6, "shuffle_weight_a16w4": 7,
    "shuffle_scale_a16w4": 8, "fp8_tensorwise_quantize": 9, "grouped_gemm_fp8": 10,
    "moe_a16w4_stage2": 11,
}

devptr = C.c_uint64
enum = C.c_int


class Tensor_(C.Structure):
    """mxjit_tensor (ABI 2): a DLPack DLTensor's fields, shape and strides inline."""
    _fields_ = [("data", devptr), ("device_type", C.c_int32), ("device_id", C.c_int32),
                ("ndim", C.c_int32), ("dtype", enum), ("shape", C.c_int64 * MAX_DIMS),
                ("stride", C.c_int64 * MAX_DIMS), ("byte_offset", C.c_uint64)]


class CtxOptions(C.Structure):
    _fields_ = [("size", C.c_uint32), ("device", enum), ("target", C.c_char_p),
                ("cache_dir", C.c_char_p), ("overlays", C.POINTER(C.c_char_p)),
                ("cache_max_bytes", C.c_uint64), ("no_disk_cache", C.c_int),
                ("emu_threads", C.c_int), ("emu_shuffle_seed", C.c_uint64),
                ("emu_hazards", C.c_int), ("emu_wait_states", C.c_int),
                ("config_dir", C.c_char_p), ("check", C.c_int), ("binding", enum),
                ("device_ordinal", C.c_int), ("jit", enum), ("allocator", C.c_void_p),
                ("emu_num_cu", C.c_int)]


class Allocator(C.Structure):
    _fields_ = [("size", C.c_uint32), ("user", C.c_void_p),
                ("alloc", C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_size_t, C.c_void_p,
                                      C.POINTER(devptr))),
                ("free", C.CFUNCTYPE(None, C.c_void_p, devptr, C.c_void_p))]


# The op args structs of ABI 2 (mxjit_<op>_args_v2): every array operand a Tensor_.
class ScaledCopyArgs(C.Structure):
    _fields_ = [("size", C.c_uint32), ("x", Tensor_), ("out", Tensor_), ("scale", C.c_float)]


class MxQuantArgs(C.Structure):
    _fields_ = [("size", C.c_uint32), ("kind", enum), ("x", Tensor_), ("mode", enum),
                ("elem", enum), ("scale_layout", enum), ("scale_block_k", C.c_int),
                ("q", Tensor_), ("s", Tensor_), ("offs", Tensor_)]


class Mxfp4QuantArgs(C.Structure):
    _fields_ = [("size", C.c_uint32), ("x", Tensor_), ("mode", enum), ("scale_layout", enum),
                ("rowwise", C.c_int), ("colwise", C.c_int), ("preshuffle", C.c_int),
                ("q_row", Tensor_), ("s_row", Tensor_), ("q_col", Tensor_), ("s_col", Tensor_)]


class ToBlockedArgs(C.Structure):
    _fields_ = [("size", C.c_uint32), ("s", Tensor_), ("out", Tensor_), ("groups", enum),
                ("offs", Tensor_), ("inverse", C.c_int)]


class E8m0ShuffleArgs(C.Structure):
    _fields_ = [("size", C.c_uint32), ("s", Tensor_), ("out", Tensor_), ("inverse", C.c_int)]


class ShuffleWeightArgs(C.Structure):
    _fields_ = [("size", C.c_uint32), ("w", Tensor_), ("out", Tensor_), ("inverse", C.c_int)]


class ShuffleA16w4Args(C.Structure):
    _fields_ = [("size", C.c_uint32), ("src", Tensor_), ("out", Tensor_),
                ("gate_up", C.c_int), ("inverse", C.c_int)]


class Fp8TensorwiseArgs(C.Structure):
    _fields_ = [("size", C.c_uint32), ("x", Tensor_), ("fp8", enum), ("q", Tensor_),
                ("scale_inv", Tensor_), ("workspace", Tensor_)]


class GroupedGemmFp8Args(C.Structure):
    _fields_ = [("size", C.c_uint32), ("pass_", enum), ("b_layout", enum), ("a", Tensor_),
                ("b", Tensor_), ("a_scale_inv", Tensor_), ("b_scale_inv", Tensor_),
                ("group_offs", Tensor_), ("out", Tensor_), ("persistent_cus", C.c_int32),
                ("accumulate", C.c_int32)]


class MoeA16w4Args(C.Structure):
    _fields_ = [("size", C.c_uint32), ("a", Tensor_), ("w", Tensor_), ("w_scale", Tensor_),
                ("bias", Tensor_), ("preshuffled", C.c_int), ("sorted_ids", Tensor_),
                ("expert_ids", Tensor_), ("sorted_weights", Tensor_),
                ("num_valid_ids", Tensor_), ("block_m", C.c_int64), ("out", Tensor_)]


class KernelKey(C.Structure):
    _fields_ = [("template_name", C.c_char * 48), ("key", C.c_char * 33)]


class PrepareItem(C.Structure):
    _fields_ = [("op", enum), ("args", C.c_void_p), ("status", C.c_int),
                ("message", C.c_char * 256)]


class CtxCounters(C.Structure):
    _fields_ = [("size", C.c_uint32), ("kernels_compiled", C.c_uint64),
                ("kernels_loaded", C.c_uint64), ("plans", C.c_uint64)]


# C struct name -> ctypes class (every public struct).
STRUCTS: Dict[str, Type[C.Structure]] = {
    "mxjit_ctx_options": CtxOptions,
    "mxjit_tensor": Tensor_,
    "mxjit_scaled_copy_args": ScaledCopyArgs,
    "mxjit_mx_quant_args": MxQuantArgs,
    "mxjit_mxfp4_quant_args": Mxfp4QuantArgs,
    "mxjit_to_blocked_args": ToBlockedArgs,
    "mxjit_e8m0_shuffle_args": E8m0ShuffleArgs,
    "mxjit_shuffle_weight_args": ShuffleWeightArgs,
    "mxjit_shuffle_a16w4_args": ShuffleA16w4Args,
    "mxjit_fp8_tensorwise_args": Fp8TensorwiseArgs,
    "mxjit_grouped_gemm_fp8_args": GroupedGemmFp8Args,
    "mxjit_moe_a16w4_args": MoeA16w4Args,
    "mxjit_kernel_key": KernelKey,
    "mxjit_prepare_item": PrepareItem,
    "mxjit_ctx_counters": CtxCounters,
    "mxjit_allocator": Allocator,
}

# op name -> (C function, args class); the shuffle_a16w4 struct serves two ops.
OP_ARGS: Dict[str, Type[C.Structure]] = {
    "scaled_copy": ScaledCopyArgs, "mxfp8_quantize": MxQuantArgs,
    "mxfp4_quantize": Mxfp4QuantArgs, "to_blocked": ToBlockedArgs,
    "e8m0_shuffle": E8m0ShuffleArgs, "shuffle_weight": ShuffleWeightArgs,
    "shuffle_weight_a16w4": ShuffleA16w4Args, "shuffle_scale_a16w4": ShuffleA16w4Args,
    "fp8_tensorwise_quantize": Fp8TensorwiseArgs, "grouped_gemm_fp8": GroupedGemmFp8Args,
    "moe_a16w4_stage2": MoeA16w4Args,
}

# Enum-valued fields: field name -> table of accepted strings.
ENUM_FIELDS = {
    "kind": MX_KINDS, "mode": SCALE_MODES, "scale_layout": SCALE_LAYOUTS, "elem": DTYPES,
    "fp8": DTYPES, "groups": BLOCKED_GROUPS, "pass_": GEMM_PASSES, "b_layout": B_LAYOUTS,
}


def declare(lib: C.CDLL) -> None:
    """Sets the argument and result types of every function the binding calls."""
    ctx_p, st = C.c_void_p, C.c_int
    sig = {
        "mxjit_status_name": (C.c_char_p, [st]),
        "mxjit_version": (C.c_char_p, []),
        "mxjit_abi_version": (C.c_int, []),
        "mxjit_abi_struct_size": (C.c_size_t, [C.c_char_p]),
        "mxjit_ctx_create": (st, [C.POINTER(CtxOptions), C.POINTER(ctx_p)]),
        "mxjit_ctx_destroy": (None, [ctx_p]),
        "mxjit_ctx_last_error": (C.c_char_p, [ctx_p]),
        "mxjit_ctx_target": (C.c_char_p, [ctx_p]),
        "mxjit_ctx_device": (C.c_int, [ctx_p]),
        "mxjit_ctx_device_ordinal": (C.c_int, [ctx_p]),
        "mxjit_malloc": (st, [ctx_p, C.c_size_t, C.POINTER(devptr)]),
        "mxjit_free": (st, [ctx_p, devptr]),
        "mxjit_memcpy_h2d": (st, [ctx_p, devptr, C.c_void_p, C.c_size_t]),
        "mxjit_memcpy_d2h": (st, [ctx_p, C.c_void_p, devptr, C.c_size_t]),
        "mxjit_synchronize": (st, [ctx_p, C.c_void_p]),
        "mxjit_mx_quant_sizes": (st, [C.POINTER(MxQuantArgs), C.POINTER(C.c_size_t),
                                      C.POINTER(C.c_size_t)]),
        "mxjit_to_blocked_size": (st, [C.POINTER(ToBlockedArgs), C.POINTER(C.c_size_t)]),
        "mxjit_supports": (st, [ctx_p, C.c_int, C.c_void_p]),
        "mxjit_prepare": (st, [ctx_p, C.c_int, C.c_void_p, C.POINTER(KernelKey), C.c_size_t,
                               C.POINTER(C.c_size_t)]),
        "mxjit_ctx_get_counters": (st, [ctx_p, C.POINTER(CtxCounters)]),
        "mxjit_workspace_size": (st, [ctx_p, C.c_int, C.c_void_p, C.POINTER(C.c_size_t)]),
        "mxjit_op_name": (C.c_char_p, [C.c_int]),
        "mxjit_tensor_from_dlpack": (st, [C.c_void_p, C.POINTER(Tensor_)]),
    }
    for op in OPS:
        fn = "mxjit_" + op
        sig[fn] = (st, [ctx_p, C.c_void_p, C.c_void_p])
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


def check_layout(lib: C.CDLL) -> None:
    """Raises ImportError when a struct here differs in size from the library's."""
    bad = []
    for name, cls in STRUCTS.items():
        theirs = lib.mxjit_abi_struct_size(name.encode())
        if theirs != C.sizeof(cls):
            bad.append(f"{name}: library {theirs} bytes, python/mxjit/_abi.py "
                       f"{C.sizeof(cls)}")
    if bad:
        raise ImportError("mxjit: the binding's struct layouts differ from libmxjit's ("
                          + "; ".join(bad) + "); update python/mxjit/_abi.py from mxjit.h")
