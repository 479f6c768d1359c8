"""Hypothesis strategies: one-operator graphs with random parameters, extreme values included,
and inputs inside their declared ranges."""

from __future__ import annotations

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from waiexport import params as P
from waiexport.builder import (GraphBuilder, chscale, conv, conv_transpose, crop, igdn,
                               layernorm, lut16, rq)

I64 = (-(2**63), 2**63 - 1)
EDGES = [-(2**63), 2**63 - 1, -(2**31), 2**31 - 1, -1, 0, 1]


def ints(lo: int = I64[0], hi: int = I64[1]):
    """Small values, values anywhere in ``[lo, hi]``, and the ends."""
    return st.one_of(st.integers(max(lo, -8), min(hi, 8)), st.integers(lo, hi),
                     st.sampled_from([v for v in EDGES + [lo, hi] if lo <= v <= hi]))


def tensor(draw, shape, lo=I64[0], hi=I64[1]):
    n = int(np.prod(shape))
    return np.array(draw(st.lists(ints(lo, hi), min_size=n, max_size=n)),
                    dtype=object).reshape(shape)


#: Value, multiplier and bias ranges, and the widest weight and shift: anything ``wai-ops/1``
#: allows, or ranges narrow enough that most graphs meet ``acc32`` (for engines of that profile).
FULL = dict(values=I64, mults=I64, biases=I64, w_bytes=(1, 2, 4, 8), shift=127)
NARROW = dict(values=(-(2**12), 2**12), mults=(-(2**10), 2**10), biases=(-(2**16), 2**16),
              w_bytes=(1, 2), shift=40)
#: Ranges past 32 bits where most graphs still meet ``acc64`` (for engines of that profile).
MID = dict(values=(-(2**40), 2**40), mults=(-(2**20), 2**20), biases=(-(2**50), 2**50),
           w_bytes=(1, 2, 4), shift=127)


@st.composite
def rq_block(draw, channels: int, allow_bias=True, allow_mult=True, r=FULL):
    m_kind = draw(st.sampled_from([0, 1, 2] if allow_mult else [0]))
    mults = ints(*r["mults"])
    mult = [None, draw(mults), draw(st.lists(mults, min_size=channels, max_size=channels))][m_kind]
    shift = draw(st.one_of(st.integers(0, r["shift"]),
                           st.lists(st.integers(0, r["shift"]), min_size=channels,
                                    max_size=channels)))
    bias_kind = draw(st.sampled_from(["none", "pre", "post"] if allow_bias else ["none"]))
    bias = None if bias_kind == "none" else draw(
        st.lists(ints(*r["biases"]), min_size=channels, max_size=channels))
    return rq(shift=shift, mult=mult, bias=bias, bias_kind=bias_kind,
              round=draw(st.sampled_from(P.ROUNDS)))


def _weights(draw, shape, r=FULL):
    w_bytes = draw(st.sampled_from(r["w_bytes"]))
    lim = 1 << (8 * w_bytes - 1)
    return tensor(draw, shape, -lim, lim - 1), w_bytes


@st.composite
def case(draw, name: str, r=FULL):
    """``(graph, inputs, scalars)`` for one operator ``name``: data inputs in table order;
    ``r`` is :data:`FULL` or :data:`NARROW`."""
    c = draw(st.integers(1, 4))
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    b = GraphBuilder()
    extra = {}
    n_in = 1
    shapes = [(c, h, w)]
    scalars: list[int] = []
    lo, hi = r["values"]
    if name == "conv":
        groups = draw(st.sampled_from([1, c]))
        cout = groups * draw(st.integers(1, 2)) if groups > 1 else draw(st.integers(1, 3))
        kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        ph, pw = draw(st.integers(0, 2)), draw(st.integers(0, 2))
        assume(h + 2 * ph >= kh and w + 2 * pw >= kw)
        wt, wb = _weights(draw, (cout, c // groups, kh, kw), r)
        params = conv(wt, stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))),
                      pad=(ph, pw), groups=groups, w_bytes=wb, rq=draw(rq_block(cout, r=r)))
    elif name == "conv_transpose":
        cout = draw(st.integers(1, 3))
        kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        ph, pw = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        oph, opw = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        assume((h - 1) * sh + kh + oph - 2 * ph >= 1 and (w - 1) * sw + kw + opw - 2 * pw >= 1)
        wt, wb = _weights(draw, (c, cout, kh, kw), r)
        params = conv_transpose(wt, stride=(sh, sw), pad=(ph, pw), out_pad=(oph, opw),
                                w_bytes=wb, rq=draw(rq_block(cout, r=r)))
    elif name == "rescale":
        params = P.Rescale(draw(rq_block(c, r=r)))
    elif name == "chscale":
        n_rows = draw(st.integers(1, 3))
        b.scalar(0, n_rows - 1)
        scalars = [draw(st.integers(0, n_rows - 1))]
        params = chscale(0, tensor(draw, (n_rows, c), *r["mults"]),
                         shift=draw(st.integers(0, r["shift"])),
                         round=draw(st.sampled_from(P.ROUNDS)))
    elif name == "mul":
        n_in = 2
        shapes.append((draw(st.sampled_from([c, 1])), h, w))
        params = P.Mul(draw(rq_block(c, allow_bias=False, r=r)))
    elif name == "lut16":
        lo, hi = -32767, 32767
        table = np.array([0] + draw(st.lists(st.integers(-32768, 32767), min_size=8, max_size=8))
                         * 8192, dtype=np.int64)[:65536]
        params = lut16(table)
    elif name in ("add", "gram"):
        n_in = 2
        shapes.append((c, h, w))
        params = None
        if name == "gram":
            params = P.Contraction(draw(st.sampled_from([d for d in (1, 2, 4) if c % d == 0])),
                                   rq(shift=draw(st.integers(0, 127)),
                                      round=draw(st.sampled_from(P.ROUNDS))))
    elif name == "apply":
        groups = draw(st.sampled_from([d for d in (1, 2, 4) if c % d == 0]))
        n_in = 2
        shapes = [(c, 1, c // groups), (c, h, w)]
        params = P.Contraction(groups, rq(shift=draw(st.integers(0, 127)),
                                          round=draw(st.sampled_from(P.ROUNDS))))
    elif name == "concat":
        n_in = draw(st.integers(2, 3))
        shapes = [(draw(st.integers(1, 3)), h, w) for _ in range(n_in)]
        params = None
    elif name == "chunk_add":
        shapes = [(2 * c, h, w)]
        params = None
    elif name == "split":
        start = draw(st.integers(0, c - 1))
        params = P.Split(start, draw(st.integers(1, c - start)))
    elif name == "pixel_shuffle":
        r = draw(st.integers(1, 2))
        shapes = [(c * r * r, h, w)]
        params = P.Factor(r)
    elif name == "pixel_unshuffle":
        r = draw(st.integers(1, 2))
        shapes = [(c, h * r, w * r)]
        params = P.Factor(r)
    elif name == "clamp":
        a, z = sorted([draw(ints(*r["values"])), draw(ints(*r["values"]))])
        params = P.Clamp(a, z)
    elif name == "leaky":
        params = P.Leaky(draw(ints(*r["mults"])), draw(st.integers(0, 63)))
    elif name == "pad_rep":
        params = P.PadRep(draw(st.integers(1, 4)))
    elif name == "crop_to":
        n_in = 2
        shapes.append((draw(st.integers(1, 3)), draw(st.integers(1, h)), draw(st.integers(1, w))))
        params = None
    elif name == "crop":
        y0, x0 = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
        hh, ww = draw(st.integers(1, h - y0)), draw(st.integers(1, w - x0))
        operands = []
        for v in (y0, x0, hh, ww):
            if draw(st.booleans()):
                b.scalar(0, v)
                scalars.append(v)
                operands.append(("scalar", len(scalars) - 1))
            else:
                operands.append(v)
        params = crop(*operands)
    elif name in ("subpos_split", "subpos_merge"):
        order = tuple(draw(st.permutations([0, 1, 2, 3])))
        params = P.Subpos(order)
        if name == "subpos_split":
            shapes = [(c, 2 * h, 2 * w)]
        else:
            n_in = 4
            shapes = [(c, h, w)] * 4
    elif name == "fill":
        if draw(st.booleans()):
            b.scalar(*sorted([draw(ints(*r["values"])), draw(ints(*r["values"]))]))
            scalars = [draw(st.integers(b.scalars[0].lo, b.scalars[0].hi))]
            params = P.Fill(1, 0)
        else:
            params = P.Fill(0, draw(ints(*r["values"])))
        extra["channels"] = draw(st.integers(1, 3))
    elif name == "igdn":
        params = igdn(tensor(draw, (c, c), -(2**31), 2**31 - 1), tensor(draw, (c,)),
                      gf=draw(st.integers(0, 127)), frac=draw(st.integers(0, 127)))
    elif name == "layernorm_c":
        params = layernorm(tensor(draw, (c,), -(2**31), 2**31 - 1), tensor(draw, (c,)),
                           eps=draw(st.one_of(st.integers(1, 9), st.integers(1, 2**64 - 1))))
    elif name == "l2norm":
        params = P.L2Norm(draw(st.one_of(st.integers(1, 9), st.integers(1, 2**64 - 1))))
    elif name == "elu":
        params = P.Elu(draw(ints()))
    else:  # relu, abs, softmax, sigmoid
        params = None
    xs = [b.input(s[0], lo, hi, max_h=s[1], max_w=s[2]) for s in shapes[:n_in]]
    out = b.op(name, xs if n_in > 1 else xs[0], params, **extra)
    b.output(*(out if isinstance(out, tuple) else (out,)))
    inputs = [tensor(draw, s, lo, hi) for s in shapes[:n_in]]
    return b.build(), inputs, scalars
