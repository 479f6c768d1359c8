"""Shared test graphs and byte-level helpers."""

from __future__ import annotations

import struct

import numpy as np

from waiexport import params as P
from waiexport.builder import (GraphBuilder, chscale, conv, conv_transpose, crop, igdn,
                               layernorm, lut16, rq)

HEADER = 32


def verdict(g) -> dict:
    """The certificate's verdict (§8.5) on one built graph: profiles, subset and reasons."""
    from waiexport.certificate import Member, verdict_of
    from waiexport.whg1 import write
    return verdict_of([Member.of("g", write(g), g)])


def every_op_builder(seed: int = 0) -> GraphBuilder:
    """A builder holding a graph that uses all 30 operators, with declared sizes, a state
    input, three scalars and several ``RQ`` layouts; it loads (§10.5 steps 1–7)."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    rows = b.scalar(0, 1)
    start = b.scalar(0, 2)
    value = b.scalar(-5, 5)
    x = b.input(4, -100, 100, max_h=8, max_w=8)
    st = b.state(2, -1000, 1000, src=1, init=3, max_h=8, max_w=8)
    c1 = b.op("conv", x, conv(rng.integers(-300, 300, (8, 4, 3, 3)), pad=1, rq=rq(
        shift=list(range(8)), mult=rng.integers(-9, 9, 8), bias=rng.integers(-50, 50, 8),
        round="half_up")))
    dw = b.op("conv", c1, conv(rng.integers(-3, 3, (8, 1, 3, 3)), pad=1, groups=8,
                               rq=rq(shift=2, bias=rng.integers(-5, 5, 8), bias_kind="post")))
    ct = b.op("conv_transpose", dw, conv_transpose(
        rng.integers(-2**20, 2**20, (8, 4, 4, 4)), stride=2, pad=1,
        rq=rq(shift=30, mult=3, round="half_even", m_bytes=8)))
    rs = b.op("rescale", ct, P.Rescale(rq(shift=1, mult=[1, 2, 3, 4], bias=[1, 2, 3, 4],
                                          bias_kind="post", b_bytes=8)))
    cs = b.op("chscale", rs, chscale(rows, rng.integers(-4, 4, (2, 4)), shift=1))
    cl = b.op("clamp", cs, P.Clamp(-32767, 32767))
    lt = b.op("lut16", cl, lut16(np.r_[0, rng.integers(-2**15, 2**15, 65535)]))
    ad = b.op("add", [lt, lt])
    cc = b.op("concat", [ad, lt])
    ch = b.op("chunk_add", cc)
    b.op("split", ch, P.Split(1, 2))  # an output nothing reads
    ps = b.op("pixel_shuffle", cc, P.Factor(2))
    pu = b.op("pixel_unshuffle", ps, P.Factor(2))
    re = b.op("relu", pu)
    lk = b.op("leaky", re, P.Leaky(-3, 2))
    pr = b.op("pad_rep", lk, P.PadRep(3))
    crt = b.op("crop_to", [pr, ct])
    mu = b.op("mul", [crt, b.op("split", crt, P.Split(0, 1))], P.Mul(rq(shift=4)))
    ig = b.op("igdn", mu, igdn(rng.integers(0, 9, (8, 8)), rng.integers(1, 9, 8), gf=3, frac=2))
    ab = b.op("abs", ig)
    cr = b.op("crop", ab, crop(("scalar", start), 1, 12, 14))
    parts = b.op("subpos_split", cr, P.Subpos((3, 1, 0, 2)))
    mg = b.op("subpos_merge", parts, P.Subpos((3, 1, 0, 2)))
    fl = b.op("fill", mg, P.Fill(1, value), channels=3)
    fc = b.op("fill", fl, P.Fill(0, -7), channels=2)
    ln = b.op("layernorm_c", mg, layernorm(rng.integers(-9, 9, 8), rng.integers(-9, 9, 8),
                                           eps=2**64 - 1, g_bytes=8))
    l2 = b.op("l2norm", ln, P.L2Norm(5))
    sm = b.op("softmax", l2)
    sg = b.op("sigmoid", sm)
    el = b.op("elu", sg, P.Elu(-70000))
    gm = b.op("gram", [el, mg], P.Contraction(2, rq(shift=16, round="half_up")))
    ap = b.op("apply", [gm, el], P.Contraction(2, rq(shift=16)))
    su = b.op("add", [st, b.op("split", x, P.Split(0, 2))], policy="clamp", lo=-1000, hi=1000)
    b.output(ap, su, fc)
    return b


def every_op_graph(seed: int = 0):
    return every_op_builder(seed).build()


def op_offsets(data: bytes) -> list[int]:
    """The byte offset of every operator record, found by a walk independent of the reader."""
    n_tensors, n_ops, n_in, n_out, n_sc = struct.unpack_from("<IIHHH", data, 8)
    off = HEADER + 16 * n_sc + 32 * n_in + 4 * n_out + 24 * n_tensors
    offsets = []
    for _ in range(n_ops):
        offsets.append(off)
        k = data[off + 1] + data[off + 2]
        plen = struct.unpack_from("<I", data, off + 4 + 4 * k)[0]
        off += 8 + 4 * k + plen
    return offsets


def params_offset(data: bytes, k: int) -> int:
    """The byte offset of operator ``k``'s parameters."""
    off = op_offsets(data)[k]
    return off + 8 + 4 * (data[off + 1] + data[off + 2])


def table_offsets(data: bytes) -> dict:
    """Byte offsets of the scalar, input, output and tensor tables."""
    n_tensors, n_ops, n_in, n_out, n_sc = struct.unpack_from("<IIHHH", data, 8)
    scal = HEADER
    inp = scal + 16 * n_sc
    out = inp + 32 * n_in
    ten = out + 4 * n_out
    return {"scalars": scal, "inputs": inp, "outputs": out, "tensors": ten}


def patch(data: bytes, off: int, fmt: str, *values) -> bytes:
    """``data`` with ``values`` packed as ``fmt`` (little-endian) at ``off``."""
    buf = bytearray(data)
    struct.pack_into("<" + fmt, buf, off, *values)
    return bytes(buf)


def examples(n: int) -> int:
    """A property test's example count: ``n`` under the default and ``ci`` profiles, scaled
    with the loaded profile's ``max_examples`` (twenty times under ``thorough``)."""
    from hypothesis import settings
    return max(1, n * settings.default.max_examples // 100)


def mistaken(name: str, mistake):
    """The reference as an engine with one named mistake in every rounding ``R_mode(p, s)``
    it makes (the value a sum or product reaches, just before it is requantised):
    ``mistake(real, p, s, mode)``, through the reference's rounding hook."""
    from waiexport.reference import decode
    from waiexport.targets.engines.base import Loaded
    from waiexport.targets.engines.reference import ReferenceEngine
    from waiexport.targets.outputs import by_name

    class Mistaken(ReferenceEngine):
        def load(self, data):
            g = super().load(data).graph
            return Loaded(g, lambda i, s: by_name(decode(g, i, s, rounding=mistake)),
                          lambda i, s: decode(g, i, s, keep=True, rounding=mistake))
    engine = Mistaken()
    engine.name = name
    return engine

