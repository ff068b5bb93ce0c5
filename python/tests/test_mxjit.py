"""Tests of the Python binding (python3 -m unittest, run by ctest as `python`).

Every op runs on the emulator and on the host device (the scalar reference of NUMERICS.md)
with the same seeded inputs and the outputs must match byte for byte; an op the emulator has
no kernel for yet must say so (MXJIT_ERR_UNSUPPORTED) the same way in the call and in
supports(), and its host run is still checked against a second host run. Bad arguments raise
MxjitError with the library's message; the struct layouts match the library's.
"""
import ctypes
import os
import tempfile
import unittest

import numpy as np

import mxjit
from mxjit import _abi

RNG_SEED = 1234


def bf16(a):
    """float32 -> bf16 bits (round to nearest even), as uint16."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def fp8_bytes(rng, n):
    """Random finite OCP e4m3 bytes (no 0x7f/0xff NaN)."""
    b = rng.integers(0, 0x77, n, dtype=np.uint8)
    return b | (rng.integers(0, 2, n, dtype=np.uint8) << 7)


# op -> function(rng) returning (fields, names of the output arrays among fields)
def case_scaled_copy(rng):
    x = bf16(rng.standard_normal((3, 40)))
    return dict(x=x, out=np.zeros((3, 40), np.float32), scale=2.5), ["out"]


def case_mxfp8_quantize(rng):
    x = bf16(rng.standard_normal((64, 64)) * 10)
    return dict(kind="dim0", x=mxjit.Tensor(x, "bf16"), mode="rceil", elem="e4m3",
                q=np.zeros(64 * 64, np.uint8), s=np.zeros(64 * 2, np.uint8)), ["q", "s"]


def case_mxfp4_quantize(rng):
    x = bf16(rng.standard_normal((64, 64)))
    return dict(x=mxjit.Tensor(x, "bf16"), mode="floor", scale_layout="plain", rowwise=1,
                q_row=np.zeros(64 * 32, np.uint8), s_row=np.zeros(64 * 2, np.uint8)), \
        ["q_row", "s_row"]


def case_to_blocked(rng):
    s = rng.integers(0, 255, (130, 5), dtype=np.uint8)
    return dict(s=s, out=np.zeros(256 * 8, np.uint8)), ["out"]


def case_e8m0_shuffle(rng):
    s = rng.integers(0, 255, (40, 10), dtype=np.uint8)
    return dict(s=s, out=np.zeros(256 * 16, np.uint8)), ["out"]


def case_shuffle_weight(rng):
    w = rng.integers(0, 255, (32, 64), dtype=np.uint8)
    return dict(w=mxjit.Tensor(w, "u8"), out=np.zeros(32 * 64, np.uint8)), ["out"]


def case_shuffle_weight_a16w4(rng):
    src = rng.integers(0, 255, (1, 16, 64), dtype=np.uint8)
    return dict(src=src, out=np.zeros(16 * 64, np.uint8)), ["out"]


def case_shuffle_scale_a16w4(rng):
    src = rng.integers(100, 140, (32, 4), dtype=np.uint8)
    return dict(src=src, out=np.zeros(32 * 8, np.uint8)), ["out"]


def case_fp8_tensorwise_quantize(rng):
    x = rng.standard_normal((8, 16)).astype(np.float32)
    return dict(x=x, fp8="e4m3", q=np.zeros(128, np.uint8),
                scale_inv=np.zeros(1, np.float32)), ["q", "scale_inv"]


def case_grouped_gemm_fp8(rng):
    a = fp8_bytes(rng, 8 * 32).reshape(8, 32)
    b = fp8_bytes(rng, 2 * 16 * 32).reshape(2, 16, 32)
    return dict(pass_="fwd", b_layout="nk", a=mxjit.Tensor(a, "e4m3"),
                b=mxjit.Tensor(b, "e4m3"), a_scale_inv=np.array([0.5], np.float32),
                b_scale_inv=np.array([0.25], np.float32),
                group_offs=np.array([0, 3, 8], np.int64),
                out=np.zeros((8, 16), np.uint16)), ["out"]


def case_moe_a16w4_stage2(rng):
    T, TOPK, E, D, I, BM = 2, 2, 2, 32, 64, 4
    ns = 8
    a = bf16(rng.standard_normal((T, TOPK, I)))
    w = rng.integers(0, 255, (E, D, I // 2), dtype=np.uint8)
    ws = rng.integers(120, 130, (E, D, I // 32), dtype=np.uint8)
    ids = np.array([(0 << 24) | 0, (1 << 24) | 1, T, T, (1 << 24) | 0, (0 << 24) | 1, T, T],
                   np.int32)
    return dict(a=a, w=w, w_scale=ws, sorted_ids=ids, expert_ids=np.array([0, 1], np.int32),
                sorted_weights=np.full(ns, 0.5, np.float32),
                num_valid_ids=np.array([ns], np.int32), block_m=BM,
                out=np.zeros((T, D), np.uint16)), ["out"]


CASES = {op: globals()["case_" + op] for op in _abi.OPS}


class Binding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.host = mxjit.Context(device="host")
        cls.emu = mxjit.Context(device="emu", no_disk_cache=True)

    @classmethod
    def tearDownClass(cls):
        cls.host.close()
        cls.emu.close()

    def test_struct_layouts_match_the_library(self):
        for name, cls in _abi.STRUCTS.items():
            self.assertEqual(mxjit.library.mxjit_abi_struct_size(name.encode()),
                             ctypes.sizeof(cls), name)
        self.assertEqual(mxjit.abi_version(), 2)
        self.assertEqual(ctypes.sizeof(_abi.Tensor_), 96)
        self.assertRegex(mxjit.version(), r"^\d+\.\d+\.\d+$")

    def test_every_op_against_the_host_reference(self):
        ran_on_emu = []
        for op, make in CASES.items():
            with self.subTest(op=op):
                fields, outs = make(np.random.default_rng(RNG_SEED))
                self.host.run(op, **fields)
                ref = {k: fields[k].copy() for k in outs}
                self.assertTrue(any(r.any() for r in ref.values()),
                                f"{op}: the host reference wrote only zeros")
                again, _ = make(np.random.default_rng(RNG_SEED))
                self.host.run(op, **again)
                for k in outs:
                    self.assertEqual(ref[k].tobytes(), again[k].tobytes(), f"{op}.{k}")
                dev, _ = make(np.random.default_rng(RNG_SEED))
                ok, why = self.emu.supports(op, **dev)
                try:
                    self.emu.run(op, **dev)
                except mxjit.MxjitError as e:
                    self.assertEqual(e.primary, 2, f"{op}: {e}")  # MXJIT_ERR_UNSUPPORTED
                    self.assertFalse(ok)
                    self.assertEqual(why, e.message)
                    continue
                self.assertTrue(ok, why)
                ran_on_emu.append(op)
                for k in outs:
                    self.assertEqual(dev[k].tobytes(), ref[k].tobytes(),
                                     f"{op}.{k}: emulator differs from the host reference")
        for op in ("scaled_copy", "mxfp8_quantize", "mxfp4_quantize"):
            self.assertIn(op, ran_on_emu)

    def test_grouped_gemm_accumulate(self):
        # accumulate=1 onto zeros gives the plain product's bytes (bf16(0 + x) = bf16(x)), on
        # the host and on the emulator; onto that result it changes it; 2 is refused
        for ctx in (self.host, self.emu):
            plain, _ = case_grouped_gemm_fp8(np.random.default_rng(RNG_SEED))
            ctx.run("grouped_gemm_fp8", **plain)
            acc, _ = case_grouped_gemm_fp8(np.random.default_rng(RNG_SEED))
            ctx.run("grouped_gemm_fp8", accumulate=1, **acc)
            self.assertEqual(acc["out"].tobytes(), plain["out"].tobytes())
            acc["out"][:] = plain["out"]
            ctx.run("grouped_gemm_fp8", accumulate=1, **acc)
            self.assertNotEqual(acc["out"].tobytes(), plain["out"].tobytes())
            with self.assertRaises(mxjit.MxjitError) as cm:
                ctx.run("grouped_gemm_fp8", accumulate=2, **acc)
            self.assertIn("args.accumulate = 2", cm.exception.message)

    def test_bad_arguments_raise_with_the_library_message(self):
        x = bf16(np.ones((2, 8)))
        with self.assertRaises(mxjit.MxjitError) as cm:
            self.emu.scaled_copy(x=x, out=np.zeros(16, np.float32))
        self.assertEqual(cm.exception.status_name, "MXJIT_ERR_INVALID_ARG_SHAPE")
        self.assertIn("args.out.ndim = 1; it must be in [2, 2]", str(cm.exception))
        with self.assertRaises(mxjit.MxjitError) as cm:  # an output of the wrong size
            self.host.e8m0_shuffle(s=np.zeros((40, 10), np.uint8), out=np.zeros(100, np.uint8))
        self.assertIn("args.out holds 100 bytes (100 elements of u8), but this call's out is "
                      "4096 bytes", cm.exception.message)
        with self.assertRaises(TypeError):  # an address has no shape
            self.host.scaled_copy(x=x, out=12345)
        with self.assertRaises(mxjit.MxjitError) as cm:
            self.host.mxfp8_quantize(kind="dim0", x=mxjit.Tensor(x, "bf16"), elem="e4m3",
                                     q=np.zeros(16, np.uint8), s=np.zeros(1, np.uint8))
        self.assertIn("is not a multiple of 32", cm.exception.message)
        with self.assertRaises(TypeError):
            self.emu.scaled_copy(x=x, bogus=1)
        with self.assertRaises(ValueError):
            self.emu.mxfp8_quantize(kind="dim9")
        with self.assertRaises(TypeError):
            mxjit.Tensor(np.zeros(4, np.complex64))
        with self.assertRaises(mxjit.MxjitError) as cm:
            mxjit.Context(device="emu", target="gfx1")
        self.assertIn("options.target 'gfx1' is not a known target", cm.exception.message)

    def test_strided_rows_and_refused_inner_stride(self):
        big = bf16(np.random.default_rng(1).standard_normal((64, 96)))
        view = big[:, :64]  # row stride 96 elements, the kind of slice engines pass
        q = np.zeros(64 * 64, np.uint8)
        s = np.zeros(128, np.uint8)
        self.emu.mxfp8_quantize(kind="dim0", x=mxjit.Tensor(view, "bf16"), elem="e4m3",
                                q=q, s=s)
        qh, sh = np.zeros_like(q), np.zeros_like(s)
        self.host.mxfp8_quantize(kind="dim0", x=mxjit.Tensor(np.ascontiguousarray(view),
                                                             "bf16"), elem="e4m3", q=qh, s=sh)
        self.assertEqual(q.tobytes(), qh.tobytes())
        self.assertEqual(s.tobytes(), sh.tobytes())
        with self.assertRaises(mxjit.MxjitError) as cm:
            self.host.mxfp8_quantize(kind="dim0", x=mxjit.Tensor(big[:, ::2], "bf16"),
                                     elem="e4m3", q=q[:48 * 64], s=s)
        self.assertEqual(cm.exception.status_name, "MXJIT_ERR_INVALID_ARG_STRIDE")
        self.assertIn("args.x.stride[1] = 2: the innermost dimension must be contiguous",
                      cm.exception.message)
        # scaled_copy takes row strides on both operands (a slice of a wider array)
        wide = np.zeros((64, 80), np.float32)
        self.emu.scaled_copy(x=view, out=wide[:, 8:72], scale=2.0)
        ref = np.zeros((64, 64), np.float32)
        self.host.scaled_copy(x=np.ascontiguousarray(view), out=ref, scale=2.0)
        self.assertEqual(wide[:, 8:72].tobytes(), ref.tobytes())
        self.assertFalse(wide[:, :8].any() or wide[:, 72:].any(), "wrote outside the view")
        # the layout ops' inputs take a row stride (the padding is never read) ...
        sw = (np.arange(40 * 20) * 37 % 251).astype(np.uint8).reshape(40, 20)
        got, ref = np.zeros(256 * 16, np.uint8), np.zeros(256 * 16, np.uint8)
        self.host.e8m0_shuffle(s=sw[:, :10], out=got)
        self.host.e8m0_shuffle(s=np.ascontiguousarray(sw[:, :10]), out=ref)
        self.assertEqual(got.tobytes(), ref.tobytes())
        # ... their outputs are the op's layout: a strided one is refused, not copied
        with self.assertRaises(mxjit.MxjitError) as cm:
            self.host.e8m0_shuffle(s=sw[:, :10], out=np.zeros((256, 32), np.uint8)[:, :16])
        self.assertEqual(cm.exception.status_name, "MXJIT_ERR_INVALID_ARG_STRIDE")
        self.assertIn("args.out.stride[0] = 32", cm.exception.message)
        self.assertIn("compact row-major", cm.exception.message)

    def test_layout_inverse_into_strided_views(self):
        # the layout ops' inverse writes its plain matrix into a view of a wider array (a
        # column slice): the view gets the compact call's bytes, every other byte (the
        # sentinel) survives; host device (these ops have no emulator kernels)
        rng = np.random.default_rng(RNG_SEED)
        SENT = 0xA5

        def into(wide, sl, run, plain):
            before = wide.copy()
            ref = np.zeros_like(wide[sl])
            run(ref)
            self.assertEqual(ref.tobytes(), plain.tobytes(), "the round trip is the identity")
            run(wide[sl])
            self.assertEqual(np.ascontiguousarray(wide[sl]).tobytes(), ref.tobytes())
            rest = wide.copy()
            rest[sl] = before[sl]
            self.assertEqual(rest.tobytes(), before.tobytes(), "wrote outside the view")

        s = rng.integers(0, 255, (3, 130, 7), dtype=np.uint8)
        blk = np.zeros(3 * 256 * 8, np.uint8)
        self.host.to_blocked(s=s, out=blk)
        into(np.full((3, 130, 16), SENT, np.uint8), np.s_[:, :, 3:10],
             lambda v: self.host.to_blocked(s=v, out=blk, inverse=1), s)
        s = rng.integers(0, 255, (300, 10), dtype=np.uint8)
        sh = np.zeros(512 * 16, np.uint8)
        self.host.e8m0_shuffle(s=s, out=sh)
        into(np.full((300, 24), SENT, np.uint8), np.s_[:, 5:15],
             lambda v: self.host.e8m0_shuffle(s=sh, out=v, inverse=1), s)
        w = rng.integers(0, 255, (2, 32, 64), dtype=np.uint8)
        ws = np.zeros_like(w)
        self.host.shuffle_weight(w=mxjit.Tensor(w, "u8"), out=ws)
        into(np.full((2, 32, 80), SENT, np.uint8), np.s_[:, :, 8:72],
             lambda v: self.host.shuffle_weight(w=mxjit.Tensor(ws, "u8"), out=v, inverse=1), w)
        wb = bf16(rng.standard_normal((32, 64)))
        wbs = np.zeros_like(wb)
        self.host.shuffle_weight(w=mxjit.Tensor(wb, "bf16"), out=mxjit.Tensor(wbs, "bf16"))
        into(np.full((32, 96), SENT * 0x101, np.uint16), np.s_[:, 16:80],
             lambda v: self.host.shuffle_weight(w=mxjit.Tensor(wbs, "bf16"),
                                                out=mxjit.Tensor(v, "bf16"), inverse=1), wb)
        src = rng.integers(0, 255, (2, 32, 64), dtype=np.uint8)
        out = np.zeros(2 * 32 * 64, np.uint8)
        self.host.shuffle_weight_a16w4(src=src, out=out)
        into(np.full((2, 32, 96), SENT, np.uint8), np.s_[:, :, 32:96],
             lambda v: self.host.shuffle_weight_a16w4(src=out, out=v, inverse=1), src)
        src = rng.integers(100, 140, (64, 10), dtype=np.uint8)
        out = np.zeros(64 * 16, np.uint8)
        self.host.shuffle_scale_a16w4(src=src, out=out)
        into(np.full((64, 12), SENT, np.uint8), np.s_[:, 2:12],
             lambda v: self.host.shuffle_scale_a16w4(src=out, out=v, inverse=1), src)

    def test_kernel_outputs_into_strided_views(self):
        # every kernel op (scaled_copy: test_strided_rows_and_refused_inner_stride) writes its
        # plain-matrix outputs into column slices of wider arrays (ABI 2 row strides): on the
        # emulator and the host device the views get the compact call's bytes and every byte
        # outside them (the sentinel) survives
        rng = np.random.default_rng(RNG_SEED)
        SENT = 0xA5

        def check(op, fields, outs, widths):
            for ctx in (self.host, self.emu):
                # the same device's compact call (GEMMs match the host only within NUMERICS'
                # tolerance; test_every_op_against_the_host_reference covers that)
                ref = {k: np.zeros(fields[k].shape, fields[k].dtype) for k in outs}
                ctx.run(op, **{**fields, **ref})
                self.assertTrue(any(r.any() for r in ref.values()), f"{op}: only zeros")
                wide, views = {}, {}
                for k in outs:
                    shp, pad = fields[k].shape, widths[k]
                    fill = SENT if fields[k].itemsize == 1 else SENT * 0x0101
                    wide[k] = np.full(shp[:-1] + (shp[-1] + pad,), fill, fields[k].dtype)
                    views[k] = wide[k][..., pad // 2:pad // 2 + shp[-1]]
                before = {k: w.copy() for k, w in wide.items()}
                ctx.run(op, **{**fields, **views})
                for k in outs:
                    name = f"{op}.{k} on {ctx.device}"
                    self.assertEqual(np.ascontiguousarray(views[k]).tobytes(),
                                     ref[k].tobytes(), name)
                    rest = wide[k].copy()
                    rest[..., widths[k] // 2:widths[k] // 2 + fields[k].shape[-1]] = \
                        before[k][..., widths[k] // 2:widths[k] // 2 + fields[k].shape[-1]]
                    self.assertEqual(rest.tobytes(), before[k].tobytes(),
                                     f"{name}: wrote outside the view")

        x = bf16(rng.standard_normal((96, 64)) * 10)
        check("mxfp8_quantize", dict(kind="dim0", x=mxjit.Tensor(x, "bf16"), elem="e4m3",
                                     mode="rceil", q=np.zeros((96, 64), np.uint8),
                                     s=np.zeros((96, 2), np.uint8)), ["q", "s"],
              dict(q=24, s=6))
        check("mxfp8_quantize", dict(kind="dim1", x=mxjit.Tensor(x, "bf16"), elem="e5m2",
                                     q=np.zeros((64, 96), np.uint8),
                                     s=np.zeros((64, 3), np.uint8)), ["q", "s"],
              dict(q=8, s=4))
        check("mxfp4_quantize", dict(x=mxjit.Tensor(x, "bf16"), mode="floor",
                                     scale_layout="plain", rowwise=1, colwise=1,
                                     q_row=np.zeros((96, 32), np.uint8),
                                     s_row=np.zeros((96, 2), np.uint8),
                                     q_col=np.zeros((64, 48), np.uint8),
                                     s_col=np.zeros((64, 3), np.uint8)),
              ["q_row", "s_row", "q_col", "s_col"], dict(q_row=8, s_row=2, q_col=16, s_col=5))
        xf = rng.standard_normal((40, 48)).astype(np.float32)
        check("fp8_tensorwise_quantize", dict(x=xf, fp8="e4m3", q=np.zeros((40, 48), np.uint8),
                                              scale_inv=np.zeros(1, np.float32)), ["q"],
              dict(q=16))
        ga = fp8_bytes(rng, 20 * 32).reshape(20, 32)
        gb = fp8_bytes(rng, 2 * 48 * 32).reshape(2, 48, 32)
        check("grouped_gemm_fp8", dict(pass_="fwd", b_layout="nk", a=mxjit.Tensor(ga, "e4m3"),
                                       b=mxjit.Tensor(gb, "e4m3"),
                                       a_scale_inv=np.array([0.5], np.float32),
                                       b_scale_inv=np.array([0.25], np.float32),
                                       group_offs=np.array([0, 7, 20], np.int64),
                                       out=np.zeros((20, 48), np.uint16)), ["out"], dict(out=12))
        T, TOPK, E, D, I = 5, 2, 2, 32, 128
        a = bf16(rng.standard_normal((T, TOPK, I)))
        w = rng.integers(0, 255, (E, D, I // 2), dtype=np.uint8)
        ws = rng.integers(120, 130, (E, D, I // 32), dtype=np.uint8)
        ids = np.full(32, T, np.int32)  # two 16-row blocks (expert 0, 1), padded with T
        ids[:3] = [(0 << 24) | 0, (1 << 24) | 2, (0 << 24) | 4]
        ids[16:19] = [(1 << 24) | 1, (0 << 24) | 3, (1 << 24) | 4]
        wsh, wssh = np.zeros(w.size, np.uint8), np.zeros(E * D * 8, np.uint8)
        self.host.shuffle_weight_a16w4(src=w, out=wsh)  # the emulator's kernel reads these
        self.host.shuffle_scale_a16w4(src=ws.reshape(E * D, I // 32), out=wssh)
        check("moe_a16w4_stage2", dict(a=a, w=wsh.reshape(w.shape), w_scale=wssh,
                                       preshuffled=1, sorted_ids=ids,
                                       expert_ids=np.array([0, 1], np.int32),
                                       sorted_weights=np.full(32, 0.5, np.float32),
                                       num_valid_ids=np.array([32], np.int32), block_m=16,
                                       out=np.zeros((T, D), np.uint16)), ["out"], dict(out=16))

    def test_prepare_then_no_compiles(self):
        with mxjit.Context(device="emu", no_disk_cache=True) as ctx:
            x = mxjit.Tensor.spec((128, 64), "bf16")
            keys = ctx.prepare("mxfp8_quantize", kind="dim0", x=x, elem="e5m2")
            self.assertEqual(len(keys), 1)
            self.assertEqual(len(keys[0][1]), 32)
            before = ctx.counters()
            self.assertEqual(before["kernels_compiled"], 1)
            xs = bf16(np.random.default_rng(2).standard_normal((128, 64)))
            ctx.mxfp8_quantize(kind="dim0", x=mxjit.Tensor(xs, "bf16"), elem="e5m2",
                               q=np.zeros(128 * 64, np.uint8), s=np.zeros(256, np.uint8))
            self.assertEqual(ctx.counters(), before)
            self.assertEqual(ctx.workspace_size("mxfp8_quantize", kind="dim0", x=x,
                                                elem="e5m2"), 0)
            ok, why = ctx.supports("mxfp4_quantize", x=x, colwise=1)
            self.assertTrue(ok, why)
            ok, why = ctx.supports("fp8_tensorwise_quantize", x=x, fp8="e4m3")
            self.assertTrue(ok, why)
            self.assertEqual(ctx.counters(), before)  # supports compiles nothing
            self.assertGreater(ctx.workspace_size("fp8_tensorwise_quantize", x=x, fp8="e4m3"), 0)

    def test_caller_workspace(self):
        """workspace= replaces the context's scratch: the array comes back holding the amax
        partials, q and scale_inv match the host reference; too small is refused naming both
        sizes."""
        x = np.random.default_rng(5).standard_normal((64, 1000)).astype(np.float32)
        need = self.emu.workspace_size("fp8_tensorwise_quantize", x=x, fp8="e5m2")
        self.assertGreater(need, 0)
        self.assertEqual(need % 256, 0)
        ref = dict(q=np.zeros(x.size, np.uint8), scale_inv=np.zeros(1, np.float32))
        self.host.fp8_tensorwise_quantize(x=x, fp8="e5m2", **ref)
        ws = np.full(need, 0x7F, np.uint8)  # poison: its contents on entry do not matter
        out = dict(q=np.zeros(x.size, np.uint8), scale_inv=np.zeros(1, np.float32))
        self.emu.fp8_tensorwise_quantize(x=x, fp8="e5m2", workspace=ws, **out)
        self.assertEqual(out["q"].tobytes(), ref["q"].tobytes())
        self.assertEqual(out["scale_inv"].tobytes(), ref["scale_inv"].tobytes())
        self.assertGreaterEqual(int((ws != 0x7F).sum()), 4, "the partials went elsewhere")
        with self.assertRaises(mxjit.MxjitError) as cm:
            self.emu.fp8_tensorwise_quantize(x=x, fp8="e5m2", workspace=ws[:need - 256], **out)
        self.assertEqual(cm.exception.status_name, "MXJIT_ERR_INVALID_ARG")
        self.assertIn(f"args.workspace_bytes = {need - 256} but this problem needs {need} "
                      "bytes", cm.exception.message)

    def test_dlpack_capsule_maps_field_by_field(self):
        """A numpy array's own __dlpack__ capsule through mxjit_tensor_from_dlpack: a strided
        view keeps its address, strides and dtype (a CPU tensor: the host device's)."""
        a = np.arange(60, dtype=np.float32).reshape(6, 10)
        if not hasattr(a, "__dlpack__"):
            self.skipTest("numpy without __dlpack__")
        view = a[1:, 2:7]
        cap, addr = mxjit._dlpack_tensor(view)
        t = _abi.Tensor_()
        self.assertEqual(mxjit.library.mxjit_tensor_from_dlpack(addr, ctypes.byref(t)), 0)
        self.assertEqual(t.data + t.byte_offset, view.ctypes.data)
        self.assertEqual((t.ndim, t.shape[0], t.shape[1]), (2, 5, 5))
        self.assertEqual((t.stride[0], t.stride[1]), (10, 1))
        self.assertEqual((t.dtype, t.device_type), (_abi.DTYPES["f32"], 1))

    def test_device_pointer_protocols(self):
        class Cai:
            __cuda_array_interface__ = {"data": (0x1234000, False), "shape": (4,),
                                        "typestr": "<f4", "version": 3}

        class Torchish:
            shape = (4,)

            def data_ptr(self):
                return 0x5678000

        self.assertEqual(mxjit.device_pointer(Cai()), 0x1234000)
        self.assertEqual(mxjit.device_pointer(Torchish()), 0x5678000)
        a = np.arange(4, dtype=np.float32)
        if hasattr(a, "__dlpack__"):  # numpy >= 1.22: a CPU DLPack tensor is refused
            with self.assertRaises(TypeError):
                mxjit.device_pointer(a)
        with self.assertRaises(TypeError):
            mxjit.device_pointer(object())


class HipDevice(unittest.TestCase):
    """The hip device over the fake HIP runtime of tests/runtime/fake_hip.h (its "device"
    memory is host memory), to run the foreign-tensor path: numpy arrays are refused, a
    __cuda_array_interface__ object is passed in place with its stream."""

    def setUp(self):
        hdr = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "runtime",
                           "fake_hip.h")
        src = open(hdr).read()
        start = src.index("static const char fake_src[] =") + len("static const char fake_src[] =")
        body = src[start:src.index(";\n", start)]
        code = "".join(eval(line.strip()) for line in body.strip().splitlines())
        self.dir = tempfile.mkdtemp()
        c = os.path.join(self.dir, "fake.c")
        lib = os.path.join(self.dir, "libfakehip.so")
        with open(c, "w") as f:
            f.write(code)
        if os.system(f"cc -shared -fPIC -DFAKE_NDEV=1 '-DFAKE_ARCH=\"gfx942\"' -o {lib} {c}"):
            self.skipTest("no C compiler for the fake HIP runtime")
        os.environ["MXJIT_HIP_LIBRARY"] = lib
        self.fake = ctypes.CDLL(lib)

    def tearDown(self):
        os.environ.pop("MXJIT_HIP_LIBRARY", None)

    def test_foreign_tensors_in_place(self):
        with mxjit.Context(device="hip", no_disk_cache=True) as ctx:
            self.assertEqual(ctx.device, "hip")
            self.assertEqual(ctx.target, "gfx942")
            x = bf16(np.ones((2, 64)))
            out = np.zeros((2, 64), np.float32)
            with self.assertRaises(TypeError):
                ctx.scaled_copy(x=x, out=out)

            class Dev:  # a device tensor whose memory the fake runtime can reach
                def __init__(self, a):
                    self.a = a
                    self.__cuda_array_interface__ = {
                        "data": (a.ctypes.data, False), "shape": a.shape,
                        "typestr": a.dtype.str, "version": 3}

            class Stream:
                cuda_stream = 0

            ctx.scaled_copy(x=Dev(x), out=Dev(out), scale=3.0, stream=Stream())
            launches = (ctypes.c_int * 8).in_dll(self.fake, "fake_launches_on")
            self.assertEqual(launches[0], 1)
            args = (ctypes.c_uint64 * 2).in_dll(self.fake, "fake_args")
            self.assertEqual(args[0], x.ctypes.data)
            self.assertEqual(args[1], out.ctypes.data)

            class DL:  # a ROCm DLPack tensor: a capsule over a DLTensor (bf16, row 1 on)
                def __init__(self, a, ordinal):
                    self.shape = (ctypes.c_int64 * 2)(1, a.shape[1])
                    self.t = mxjit._DLTensor(
                        data=a.ctypes.data, device=mxjit._DLDevice(10, ordinal), ndim=2,
                        dtype=mxjit._DLDataType(4, 16, 1), shape=self.shape, strides=None,
                        byte_offset=a.strides[0])
                    new = ctypes.pythonapi.PyCapsule_New
                    new.restype = ctypes.py_object
                    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
                    self.cap = new(ctypes.addressof(self.t), b"dltensor", None)

                def __dlpack__(self, stream=None):
                    return self.cap

            out1 = np.zeros((1, 64), np.float32)
            ctx.scaled_copy(x=DL(x, ctx.device_ordinal), out=Dev(out1), scale=3.0)
            self.assertEqual(launches[0], 2)
            self.assertEqual(args[0], x.ctypes.data + x.strides[0])  # data + byte_offset
            with self.assertRaises(mxjit.MxjitError) as cm:  # another GPU's tensor
                ctx.scaled_copy(x=DL(x, ctx.device_ordinal + 1), out=Dev(out1))
            self.assertIn("args.x.device_id", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
