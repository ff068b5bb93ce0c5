"""mxjit for Python: a pure ctypes binding over libmxjit.so (no compiled extension).

    import numpy as np, mxjit
    with mxjit.Context(device="emu") as ctx:
        x = np.ones((64, 64), dtype=np.uint16) * 0x3f80          # bf16 ones
        q = np.empty(64 * 64, np.uint8); s = np.empty(64 * 2, np.uint8)
        ctx.mxfp8_quantize(kind="dim0", x=mxjit.Tensor(x, "bf16"), elem="e4m3", q=q, s=s)

Every op of mxjit.h is a method taking its ABI-2 args struct's fields as keywords (enums as
strings or ints; every array operand, input or output, as a ``Tensor`` or an array, which
becomes an mxjit_tensor descriptor with its shape, strides and byte offset: the op's dims come
from the input shapes, outputs are checked by dtype and byte size; a view with a row stride,
such as a column slice ``wide[:, 8:72]``, is taken by every input and every plain-matrix
output, whose padding between rows is never written — mxjit.h section 5). numpy uint16 arrays are
taken as bf16 (numpy has no bf16); name other dtypes with ``Tensor(array, "e4m3")``. Where
arrays live:

- host device: numpy arrays are passed in place (the host device computes on host memory);
- emu device: numpy arrays are copied into emulator memory, the op runs, and every writable
  array is copied back;
- hip device: device tensors only, passed in place: anything with ``__cuda_array_interface__``
  (CuPy, Numba, torch on ROCm), ``__dlpack__`` (a ROCm DLPack tensor) or ``data_ptr()``
  (torch); pass the stream as ``stream=`` (an int handle or an object with ``cuda_stream``).
  A ``__dlpack__`` tensor maps field by field (mxjit_tensor_from_dlpack: data, byte offset,
  strides, dtype, device), without a copy; a raw address needs ``Tensor.spec(shape, dtype,
  data=address)``.

Errors raise ``MxjitError`` carrying the status and the library's message. The library is
found through $MXJIT_LIBRARY, then libmxjit.so on the loader path; its struct sizes are
compared with this binding's at import.
"""
from __future__ import annotations

import ctypes as C
import ctypes.util
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _abi

__all__ = ["Context", "Tensor", "MxjitError", "library", "version", "abi_version"]


def _load() -> C.CDLL:
    path = os.environ.get("MXJIT_LIBRARY") or ctypes.util.find_library("mxjit") or "libmxjit.so"
    try:
        lib = C.CDLL(path)
    except OSError as e:
        raise ImportError(f"mxjit: cannot load {path} ({e}); build it (make build) and set "
                          "MXJIT_LIBRARY to build/libmxjit.so") from e
    _abi.declare(lib)
    _abi.check_layout(lib)
    return lib


library: C.CDLL = _load()


def version() -> str:
    """The library's version string ("0.1.0")."""
    return library.mxjit_version().decode()


def abi_version() -> int:
    """The library's MXJIT_ABI_VERSION."""
    return library.mxjit_abi_version()


class MxjitError(RuntimeError):
    """A failed mxjit call: ``status`` (int), ``status_name`` and the library's message."""

    def __init__(self, status: int, message: str):
        self.status = status
        self.status_name = library.mxjit_status_name(status).decode()
        self.message = message
        super().__init__(f"{self.status_name}: {message}")

    @property
    def primary(self) -> int:
        """The primary status code (the low byte: MXJIT_ERR_INVALID_ARG for _SHAPE etc.)."""
        return self.status & 0xFF


class Tensor:
    """A tensor argument: an array (or device tensor) and the mxjit dtype of its elements.

    numpy has no bf16 or fp8 types, so those arrays are uint16/uint8 arrays with ``dtype``
    naming what they hold. ``Tensor.spec(shape, dtype)`` describes a tensor without memory,
    for ``Context.supports`` and ``Context.prepare``.
    """

    _NUMPY = {"uint8": "u8", "uint16": "bf16", "int32": "i32", "int64": "i64",
              "float32": "f32", "float16": "f16"}
    _TYPESTR = {"u1": "u8", "u2": "bf16", "i4": "i32", "i8": "i64", "f4": "f32", "f2": "f16"}

    def __init__(self, array: Any, dtype: Optional[str] = None):
        self.array = array
        self.shape: Tuple[int, ...] = tuple(int(d) for d in _shape_of(array))
        self.data = 0
        if dtype is None and hasattr(array, "__cuda_array_interface__"):
            dtype = self._TYPESTR.get(array.__cuda_array_interface__["typestr"][1:])
        if dtype is None:
            dtype = self._NUMPY.get(str(getattr(array, "dtype", "")))
            if dtype is None:
                raise TypeError(f"mxjit.Tensor: cannot tell the mxjit dtype of "
                                f"{type(array).__name__} with dtype "
                                f"{getattr(array, 'dtype', '?')}; pass dtype='bf16' etc.")
        if dtype not in _abi.DTYPES:
            raise ValueError(f"mxjit.Tensor: dtype {dtype!r} is not one of "
                             f"{', '.join(_abi.DTYPES)}")
        self.dtype = dtype

    @classmethod
    def spec(cls, shape: Sequence[int], dtype: str, data: int = 0) -> "Tensor":
        """A shape and dtype without an array: data 0 (for ``Context.supports`` and
        ``Context.prepare``) or a device address (compact row-major at it)."""
        t = cls.__new__(cls)
        t.array, t.shape, t.dtype = None, tuple(int(d) for d in shape), dtype
        t.data = int(data)
        if dtype not in _abi.DTYPES:
            raise ValueError(f"mxjit.Tensor: dtype {dtype!r} is not one of "
                             f"{', '.join(_abi.DTYPES)}")
        return t


def _shape_of(a: Any) -> Sequence[int]:
    if hasattr(a, "__cuda_array_interface__"):
        return a.__cuda_array_interface__["shape"]
    return a.shape


def _is_numpy(a: Any) -> bool:
    return type(a).__module__ == "numpy" and hasattr(a, "ctypes")


# ---- device pointers of foreign tensors (HIP) ------------------------------------------------

class _DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class _DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class _DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", _DLDevice), ("ndim", C.c_int32),
                ("dtype", _DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


_DL_CPU, _DL_ROCM = 1, 10


def _dlpack_tensor(obj: Any) -> Tuple[Any, int]:
    """(the capsule, the address of its DLTensor) of an object's __dlpack__ (read, not
    consumed; keep the capsule alive while the address is used)."""
    cap = obj.__dlpack__()
    get = C.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = C.c_void_p, [C.py_object, C.c_char_p]
    return cap, get(cap, b"dltensor")  # DLManagedTensor starts with its DLTensor


def _dlpack_pointer(obj: Any) -> Tuple[int, int]:
    """(address, DLPack device type) of an object's __dlpack__ capsule (read, not consumed)."""
    cap, addr = _dlpack_tensor(obj)
    t = _DLTensor.from_address(addr)
    return (t.data or 0) + t.byte_offset, t.device.device_type


def device_pointer(obj: Any) -> int:
    """The device address of a foreign device tensor (see the module docstring)."""
    if hasattr(obj, "__cuda_array_interface__"):
        return int(obj.__cuda_array_interface__["data"][0])
    if hasattr(obj, "data_ptr"):
        return int(obj.data_ptr())
    if hasattr(obj, "__dlpack__"):
        addr, dev = _dlpack_pointer(obj)
        if dev != _DL_ROCM:
            raise TypeError(f"mxjit: a DLPack tensor on device type {dev} is not ROCm "
                            f"({_DL_ROCM}) memory; move it to the GPU first")
        return addr
    raise TypeError(f"mxjit: {type(obj).__name__} is not a device tensor (no "
                    "__cuda_array_interface__, __dlpack__ or data_ptr())")


def _stream_handle(stream: Any) -> Optional[int]:
    if stream is None or isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "hip_stream", "handle", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"mxjit: stream {stream!r} is neither an int handle nor an object with "
                    "cuda_stream")


class Context:
    """An mxjit context (mxjit_ctx): one device, its kernel cache and its plans.

    device: "auto", "emu", "host" or "hip"; target: "gfx942"/"gfx950" or None;
    device_ordinal: a HIP device index (None: the caller's current device);
    jit: False serves kernels only from overlays and the cache (MXJIT_JIT_NEVER).
    Use as a context manager or call close().
    """

    def __init__(self, device: str = "auto", target: Optional[str] = None,
                 device_ordinal: Optional[int] = None, jit: bool = True,
                 no_disk_cache: bool = False, cache_dir: Optional[str] = None,
                 check: bool = False, emu_threads: int = 0):
        if device not in _abi.DEVICES:
            raise ValueError(f"mxjit.Context: device {device!r} is not one of "
                             f"{', '.join(_abi.DEVICES)}")
        o = _abi.CtxOptions(size=C.sizeof(_abi.CtxOptions), device=_abi.DEVICES[device],
                            target=target.encode() if target else None,
                            cache_dir=cache_dir.encode() if cache_dir else None,
                            no_disk_cache=int(no_disk_cache), check=int(check),
                            emu_threads=emu_threads, jit=0 if jit else 1)
        if device_ordinal is not None:
            o.binding, o.device_ordinal = _abi.BINDINGS["ordinal"], device_ordinal
        self._ctx = C.c_void_p()
        st = library.mxjit_ctx_create(C.byref(o), C.byref(self._ctx))
        if st:
            msg = self._message()
            self.close()
            raise MxjitError(st, msg)
        self.device: str = {v: k for k, v in _abi.DEVICES.items()}[
            library.mxjit_ctx_device(self._ctx)]
        t = library.mxjit_ctx_target(self._ctx)
        self.target: Optional[str] = t.decode() if t else None
        self.device_ordinal: int = library.mxjit_ctx_device_ordinal(self._ctx)

    # -- lifetime
    def close(self) -> None:
        """Destroys the context (idempotent)."""
        ctx, self._ctx = getattr(self, "_ctx", None), None
        if ctx and library is not None:  # at interpreter exit the module may be gone
            library.mxjit_ctx_destroy(ctx)

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def _message(self) -> str:
        m = library.mxjit_ctx_last_error(self._ctx)
        return m.decode(errors="replace") if m else ""

    def _check(self, st: int) -> None:
        if st:
            raise MxjitError(st, self._message())

    def _live(self) -> C.c_void_p:
        if not self._ctx:
            raise ValueError("mxjit.Context: the context is closed")
        return self._ctx

    # -- memory (emulator staging of numpy arrays)
    def _stage(self, arr: Any, staged: List[Tuple[int, Any]]) -> int:
        """The address an op gets for arr on this context's device."""
        if arr is None:
            return 0
        if isinstance(arr, int):
            return arr
        if self.device == "hip":
            if _is_numpy(arr):
                raise TypeError("mxjit: a numpy array is host memory; the hip device needs a "
                                "device tensor (__cuda_array_interface__, __dlpack__ or "
                                "data_ptr())")
            return device_pointer(arr)
        if not _is_numpy(arr):
            raise TypeError(f"mxjit: the {self.device} device takes numpy arrays, not "
                            f"{type(arr).__name__}")
        if self.device == "host":
            return int(arr.ctypes.data)
        base = arr
        while getattr(base, "base", None) is not None and _is_numpy(base.base):
            base = base.base  # views: stage the whole buffer so strides stay valid
        for addr, a in staged:
            if a is base:
                return addr + (arr.ctypes.data - base.ctypes.data)
        if not base.flags.c_contiguous:
            raise ValueError("mxjit: arrays for the emu device must be C-contiguous buffers "
                             "(views of one are fine)")
        d = _abi.devptr()
        self._check(library.mxjit_malloc(self._live(), max(base.nbytes, 1), C.byref(d)))
        staged.append((d.value, base))
        if base.nbytes:
            self._check(library.mxjit_memcpy_h2d(self._ctx, d.value, base.ctypes.data,
                                                 base.nbytes))
        return d.value + (arr.ctypes.data - base.ctypes.data)

    def _unstage(self, staged: List[Tuple[int, Any]], copy_back: bool) -> None:
        err = None
        for addr, a in staged:
            if copy_back and a.flags.writeable and a.nbytes:
                st = library.mxjit_memcpy_d2h(self._ctx, a.ctypes.data, addr, a.nbytes)
                if st and err is None:
                    err = MxjitError(st, self._message())
            library.mxjit_free(self._ctx, addr)
        if err:
            raise err

    # -- argument structs
    def _tensor(self, t: Any, staged: List[Tuple[int, Any]]) -> _abi.Tensor_:
        """The mxjit_tensor of an operand (None: absent, all 0)."""
        if t is None:
            return _abi.Tensor_()
        if isinstance(t, int):
            raise TypeError("mxjit: an array operand needs a shape and dtype; pass "
                            "mxjit.Tensor.spec(shape, dtype, data=address) for an address")
        if not isinstance(t, Tensor):
            a = t
            if (self.device == "hip" and hasattr(a, "__dlpack__") and not _is_numpy(a)
                    and not hasattr(a, "__cuda_array_interface__")
                    and not hasattr(a, "data_ptr")):
                return self._dlpack(a)
            t = Tensor(a)
        if len(t.shape) > _abi.MAX_DIMS:
            raise ValueError(f"mxjit: a tensor has at most {_abi.MAX_DIMS} dims, not "
                             f"{len(t.shape)}")
        data = t.data if t.array is None else self._stage(t.array, staged)
        c = _abi.Tensor_(data=data, dtype=_abi.DTYPES[t.dtype], ndim=len(t.shape))
        for i, d in enumerate(t.shape):
            c.shape[i] = d
        strides = _strides_in_elements(t)
        if strides is not None:
            for i, s in enumerate(strides):
                c.stride[i] = s
        return c

    def _dlpack(self, obj: Any) -> _abi.Tensor_:
        """A DLPack tensor mapped field by field, without a copy (mxjit_tensor_from_dlpack)."""
        cap, addr = _dlpack_tensor(obj)
        c = _abi.Tensor_()
        st = library.mxjit_tensor_from_dlpack(addr, C.byref(c))
        del cap
        if st:
            raise MxjitError(st, "mxjit_tensor_from_dlpack: the DLPack tensor's dtype or ndim "
                                 "has no mxjit equivalent")
        if c.device_type != _DL_ROCM:
            raise TypeError(f"mxjit: a DLPack tensor on device type {c.device_type} is not "
                            f"ROCm ({_DL_ROCM}) memory; move it to the GPU first")
        return c

    def _args(self, op: str, fields: Dict[str, Any],
              staged: List[Tuple[int, Any]]) -> C.Structure:
        cls = _abi.OP_ARGS[op]
        a = cls(size=C.sizeof(cls))
        names = {f[0] for f in cls._fields_}
        for k, v in fields.items():
            name = "pass_" if k in ("pass", "pass_") else k
            if name not in names or name == "size":
                raise TypeError(f"mxjit.{op}: no argument {k!r}; its args are "
                                f"{', '.join(n for n, _ in cls._fields_ if n != 'size')}")
            ctype = dict(cls._fields_)[name]
            if ctype is _abi.Tensor_:
                setattr(a, name, self._tensor(v, staged))
            elif name in _abi.ENUM_FIELDS and isinstance(v, str):
                table = _abi.ENUM_FIELDS[name]
                if v not in table:
                    raise ValueError(f"mxjit.{op}: {k} = {v!r}; use one of "
                                     f"{', '.join(table)}")
                setattr(a, name, table[v])
            else:
                setattr(a, name, int(v) if not isinstance(v, float) else v)
        return a

    # -- ops
    def run(self, op: str, stream: Any = None, **fields: Any) -> None:
        """Runs op (a name of mxjit.h's ops, e.g. "mxfp8_quantize") with these args."""
        if op not in _abi.OPS:
            raise ValueError(f"mxjit: unknown op {op!r}; ops: {', '.join(_abi.OPS)}")
        staged: List[Tuple[int, Any]] = []
        try:
            a = self._args(op, fields, staged)
            st = getattr(library, "mxjit_" + op)(self._live(), _stream_handle(stream),
                                                C.byref(a))
            if st:
                raise MxjitError(st, self._message())
        finally:
            self._unstage(staged, copy_back=True)

    def supports(self, op: str, **fields: Any) -> Tuple[bool, str]:
        """(True, "") if the context can run op with these args, else (False, the reason).
        Pointers may be left out; tensors may be ``Tensor.spec(shape, dtype)``."""
        staged: List[Tuple[int, Any]] = []
        try:
            a = self._args(op, fields, staged)
            st = library.mxjit_supports(self._live(), _abi.OPS[op], C.byref(a))
            why = self._message()  # before the frees below clear it
        finally:
            self._unstage(staged, copy_back=False)
        return (True, "") if st == 0 else (False, why)

    def prepare(self, op: str, **fields: Any) -> List[Tuple[str, str]]:
        """Compiles or loads every kernel op runs for this problem; returns their
        (template, key) pairs. Pointers may be left out, as for supports."""
        staged: List[Tuple[int, Any]] = []
        keys = (_abi.KernelKey * 8)()
        n = C.c_size_t()
        try:
            a = self._args(op, fields, staged)
            st = library.mxjit_prepare(self._live(), _abi.OPS[op], C.byref(a), keys, 8,
                                       C.byref(n))
            self._check(st)  # before the frees below clear the message
        finally:
            self._unstage(staged, copy_back=False)
        return [(k.template_name.decode(), k.key.decode()) for k in keys[:min(n.value, 8)]]

    def workspace_size(self, op: str, **fields: Any) -> int:
        """Device workspace bytes op needs for this problem (mxjit_workspace_size)."""
        staged: List[Tuple[int, Any]] = []
        n = C.c_size_t()
        try:
            a = self._args(op, fields, staged)
            self._check(library.mxjit_workspace_size(self._live(), _abi.OPS[op], C.byref(a),
                                                     C.byref(n)))
        finally:
            self._unstage(staged, copy_back=False)
        return n.value

    def counters(self) -> Dict[str, int]:
        """kernels_compiled, kernels_loaded and plans of this context so far."""
        c = _abi.CtxCounters(size=C.sizeof(_abi.CtxCounters))
        self._check(library.mxjit_ctx_get_counters(self._live(), C.byref(c)))
        return {"kernels_compiled": c.kernels_compiled, "kernels_loaded": c.kernels_loaded,
                "plans": c.plans}

    def mx_quant_sizes(self, **fields: Any) -> Tuple[int, int]:
        """(q bytes, scale bytes) of an MX quantize with these args (mxjit_mx_quant_sizes)."""
        a = self._args("mxfp8_quantize", fields, [])
        q, s = C.c_size_t(), C.c_size_t()
        st = library.mxjit_mx_quant_sizes(C.byref(a), C.byref(q), C.byref(s))
        if st:
            raise MxjitError(st, "mx_quant_sizes: the args are invalid (run the op, or "
                                 "supports(), for the message)")
        return q.value, s.value

    def synchronize(self, stream: Any = None) -> None:
        """Waits for the stream's work (emu and host run synchronously)."""
        self._check(library.mxjit_synchronize(self._live(), _stream_handle(stream)))


def _strides_in_elements(t: Tensor) -> Optional[List[int]]:
    """Element strides of a non-contiguous array, None for C-contiguous or shape-only."""
    a = t.array
    if a is None:
        return None
    if hasattr(a, "__cuda_array_interface__"):
        st = a.__cuda_array_interface__.get("strides")
        item = int(a.__cuda_array_interface__["typestr"][2:])
        return None if st is None else [s // item for s in st]
    if _is_numpy(a):
        if a.flags.c_contiguous:
            return None
        return [s // a.itemsize for s in a.strides]
    if hasattr(a, "stride") and callable(a.stride):  # torch
        return list(a.stride())
    return None


def _make_op(op: str):
    def method(self: Context, stream: Any = None, **fields: Any) -> None:
        self.run(op, stream=stream, **fields)
    method.__name__ = op
    method.__doc__ = (f"mxjit_{op} (see mxjit.h for its args struct "
                      f"{_abi.OP_ARGS[op].__name__}); fields as keywords.")
    return method


for _op in _abi.OPS:
    setattr(Context, _op, _make_op(_op))
