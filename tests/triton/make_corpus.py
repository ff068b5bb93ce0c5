#!/usr/bin/env python3
"""make_corpus.py: compiles mxjit's Triton regression kernels for gfx942 and gfx950.

Needs only Triton (its AMD backend compiles without an AMD GPU or ROCm). Usage:
    python3 tests/triton/make_corpus.py OUTDIR
For every (kernel, target) it writes OUTDIR/<kernel>_<target>.hsaco (the code object),
.amdgcn (the assembly with its .amdgpu_metadata) and .json (Triton's metadata), and
OUTDIR/versions.txt. The kernels are the repository's own; see tests/triton/README.md.
"""
import inspect
import json
import os
import platform
import sys
import traceback

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def mxq_dim0_floor(x_ptr, q_ptr, s_ptr, M, K, BM: tl.constexpr):
    """MXFP8 dim0 (1x32 blocks along K), FLOOR scale, bf16 in, OCP e4m3 out.

    Program (pid_m, pid_k) quantizes rows [BM*pid_m, BM*pid_m+BM) of block pid_k.
    q is (M, K) row-major, one byte per element; s is (M, K/32), one byte per block.
    The e4m3 encoding is integer arithmetic (no fp8 conversion instruction), so it
    means the same on both targets.
    """
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_k * 32 + tl.arange(0, 32)
    rmask = rows < M
    offs = rows[:, None] * K + cols[None, :]
    m2 = rmask[:, None]
    x = tl.load(x_ptr + offs, mask=m2, other=0.0).to(tl.float32)
    xb = x.to(tl.int32, bitcast=True)
    ab = xb & 0x7FFFFFFF
    # amax over the block on the bit patterns: for non-negative floats the integer order is
    # the float order, and NaN (above 0x7F800000) wins, so NaN propagates.
    amax = tl.max(ab, axis=1)
    eb = (amax >> 23) & 0xFF
    sb = tl.where(eb == 255, 255, tl.maximum(eb - 8, 0))
    # reciprocal 2^(127 - sb) as fp32 bits; sb <= 246 for finite amax, so never 254.
    rb = tl.where(sb == 255, 0x7FC00000, (254 - sb) << 23)
    r = rb.to(tl.float32, bitcast=True)
    y = x * r[:, None]
    yb = y.to(tl.int32, bitcast=True)
    sign = (yb >> 24) & 0x80
    a = yb & 0x7FFFFFFF
    # a < 2^-6: subnormal e4m3, n = RNE(|y| * 2^9)
    af = a.to(tl.float32, bitcast=True)
    sub = af * 512.0
    sub_i = sub.to(tl.int32)
    frac = sub - sub_i.to(tl.float32)
    up = (frac > 0.5) | ((frac == 0.5) & ((sub_i & 1) == 1))
    n_sub = sub_i + up.to(tl.int32)
    # normal: RNE of the 23-bit mantissa to 3 bits on the bit pattern
    lsb = (a >> 20) & 1
    rnd = a + 0x7FFFF + lsb
    code_n = (rnd >> 20) - ((127 - 7) << 3)
    code = tl.where(a < 0x3C800000, n_sub, code_n)
    code = tl.where(a >= 0x43E00000, 0x7E, code)  # >= 448 saturates
    # a NaN block (sb 255, y NaN) encodes as the positive NaN 0x7F, as the host reference does
    q = tl.where(a > 0x7F800000, 0x7F, code | sign).to(tl.uint8)
    tl.store(q_ptr + offs, q, mask=m2)
    tl.store(s_ptr + rows * (K // 32) + pid_k, sb.to(tl.uint8), mask=rmask)


@triton.jit
def mm_bf16(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
            BK: tl.constexpr):
    """C (M, N) f32 = A (M, K) bf16 @ B (K, N) bf16, all row-major, one program, f32 acc."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def mm_fp8(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
           BK: tl.constexpr):
    """C (M, N) f32 = A (M, K) fp8 @ B (K, N) fp8, row-major, one program, f32 acc."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


FP8 = {"gfx942": "fp8e4b8", "gfx950": "fp8e4nv"}


def jobs(arch):
    return [
        ("mxq_dim0_floor", mxq_dim0_floor,
         {"x_ptr": "*bf16", "q_ptr": "*u8", "s_ptr": "*u8", "M": "i32", "K": "i32",
          "BM": "constexpr"}, {"BM": 32}, 4),
        ("mm_bf16", mm_bf16,
         {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "constexpr",
          "N": "constexpr", "K": "constexpr", "BK": "constexpr"},
         {"M": 64, "N": 64, "K": 64, "BK": 32}, 4),
        ("mm_fp8", mm_fp8,
         {"a_ptr": "*" + FP8[arch], "b_ptr": "*" + FP8[arch], "c_ptr": "*fp32",
          "M": "constexpr", "N": "constexpr", "K": "constexpr", "BK": "constexpr"},
         {"M": 64, "N": 64, "K": 64, "BK": 64}, 4),
    ]


def make_src(fn, sig, consts):
    params = inspect.signature(ASTSource.__init__).parameters
    if "constexprs" in params:
        return ASTSource(fn=fn, signature=sig, constexprs=consts)
    # older Triton: constants keyed by name, signature without the constexprs
    return ASTSource(fn=fn, signature={k: v for k, v in sig.items() if v != "constexpr"},
                     constants=consts)


def jsonable(v):
    try:
        json.dumps(v)
        return v
    except TypeError:
        return repr(v)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "versions.txt"), "w") as f:
        f.write(f"triton {triton.__version__}\npython {platform.python_version()}\n")
        try:
            import torch
            f.write(f"torch {torch.__version__}\n")
        except Exception:
            pass
        f.write("ASTSource.__init__%s\n" % (inspect.signature(ASTSource.__init__),))
    failed = 0
    for arch in ("gfx942", "gfx950"):
        for name, fn, sig, consts, nw in jobs(arch):
            stem = os.path.join(out, f"{name}_{arch}")
            try:
                src = make_src(fn, sig, consts)
                k = triton.compile(src, target=GPUTarget("hip", arch, 64),
                                   options={"num_warps": nw, "num_stages": 2})
                with open(stem + ".hsaco", "wb") as f:
                    f.write(k.asm["hsaco"])
                with open(stem + ".amdgcn", "w") as f:
                    f.write(k.asm["amdgcn"])
                md = k.metadata
                md = md._asdict() if hasattr(md, "_asdict") else dict(md.__dict__)
                md = {key: jsonable(v) for key, v in md.items()}
                md["signature_in"] = sig
                md["constexprs_in"] = consts
                with open(stem + ".json", "w") as f:
                    json.dump(md, f, indent=1, sort_keys=True)
                print("ok", name, arch, len(k.asm["hsaco"]), "bytes", flush=True)
            except Exception:
                failed += 1
                with open(stem + ".err", "w") as f:
                    traceback.print_exc(file=f)
                print("FAILED", name, arch, flush=True)
                traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
