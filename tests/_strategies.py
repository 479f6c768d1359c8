"""Hypothesis strategies: one-operator graphs with random parameters, extreme values included,
and inputs inside their declared ranges."""

from __future__ import annotations

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from waiexport import params as P
from waiexport.builder import (
    GraphBuilder,
    chscale,
    conv,
    conv_transpose,
    crop,
    igdn,
    layernorm,
    lut16,
    rq,
)

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


class Drawn:
    """What one operator's case is drawn into: the builder (for scalars), the input shapes
    (the first is ``[c, h, w]``), how many of them the operator takes, the scalars' values,
    the inputs' range and the builder's extra keywords."""

    def __init__(self, draw, r):
        self.c = draw(st.integers(1, 4))
        self.h, self.w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
        self.b, self.extra, self.n_in = GraphBuilder(), {}, 1
        self.shapes = [(self.c, self.h, self.w)]
        self.scalars: list[int] = []
        self.lo, self.hi = r["values"]


def _conv(draw, d, r):
    c, h, w = d.c, d.h, d.w
    groups = draw(st.sampled_from([1, c]))
    cout = groups * draw(st.integers(1, 2)) if groups > 1 else draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    ph, pw = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    assume(h + 2 * ph >= kh and w + 2 * pw >= kw)
    wt, wb = _weights(draw, (cout, c // groups, kh, kw), r)
    return conv(wt, stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), pad=(ph, pw),
                groups=groups, w_bytes=wb, rq=draw(rq_block(cout, r=r)))


def _conv_transpose(draw, d, r):
    c, h, w = d.c, d.h, d.w
    cout = draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    ph, pw = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    oph, opw = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    assume((h - 1) * sh + kh + oph - 2 * ph >= 1 and (w - 1) * sw + kw + opw - 2 * pw >= 1)
    wt, wb = _weights(draw, (c, cout, kh, kw), r)
    return conv_transpose(wt, stride=(sh, sw), pad=(ph, pw), out_pad=(oph, opw), w_bytes=wb,
                          rq=draw(rq_block(cout, r=r)))


def _chscale(draw, d, r):
    n_rows = draw(st.integers(1, 3))
    d.b.scalar(0, n_rows - 1)
    d.scalars = [draw(st.integers(0, n_rows - 1))]
    return chscale(0, tensor(draw, (n_rows, d.c), *r["mults"]),
                   shift=draw(st.integers(0, r["shift"])), round=draw(st.sampled_from(P.ROUNDS)))


def _mul(draw, d, r):
    d.n_in = 2
    d.shapes.append((draw(st.sampled_from([d.c, 1])), d.h, d.w))
    return P.Mul(draw(rq_block(d.c, allow_bias=False, r=r)))


def _lut16(draw, d, r):
    d.lo, d.hi = -32767, 32767
    table = np.array([0] + draw(st.lists(st.integers(-32768, 32767), min_size=8, max_size=8))
                     * 8192, dtype=np.int64)[:65536]
    return lut16(table)


def _two_alike(draw, d, r):
    d.n_in = 2
    d.shapes.append((d.c, d.h, d.w))


def _gram(draw, d, r):
    _two_alike(draw, d, r)
    return P.Contraction(draw(st.sampled_from([g for g in (1, 2, 4) if d.c % g == 0])),
                         rq(shift=draw(st.integers(0, 127)), round=draw(st.sampled_from(P.ROUNDS))))


def _apply(draw, d, r):
    groups = draw(st.sampled_from([g for g in (1, 2, 4) if d.c % g == 0]))
    d.n_in = 2
    d.shapes = [(d.c, 1, d.c // groups), (d.c, d.h, d.w)]
    return P.Contraction(groups, rq(shift=draw(st.integers(0, 127)),
                                    round=draw(st.sampled_from(P.ROUNDS))))


def _concat(draw, d, r):
    d.n_in = draw(st.integers(2, 3))
    d.shapes = [(draw(st.integers(1, 3)), d.h, d.w) for _ in range(d.n_in)]


def _chunk_add(draw, d, r):
    d.shapes = [(2 * d.c, d.h, d.w)]


def _split(draw, d, r):
    start = draw(st.integers(0, d.c - 1))
    return P.Split(start, draw(st.integers(1, d.c - start)))


def _pixel_shuffle(draw, d, r):
    k = draw(st.integers(1, 2))
    d.shapes = [(d.c * k * k, d.h, d.w)]
    return P.Factor(k)


def _pixel_unshuffle(draw, d, r):
    k = draw(st.integers(1, 2))
    d.shapes = [(d.c, d.h * k, d.w * k)]
    return P.Factor(k)


def _clamp(draw, d, r):
    return P.Clamp(*sorted([draw(ints(*r["values"])), draw(ints(*r["values"]))]))


def _crop_to(draw, d, r):
    d.n_in = 2
    d.shapes.append((draw(st.integers(1, 3)), draw(st.integers(1, d.h)),
                     draw(st.integers(1, d.w))))


def _crop(draw, d, r):
    y0, x0 = draw(st.integers(0, d.h - 1)), draw(st.integers(0, d.w - 1))
    hh, ww = draw(st.integers(1, d.h - y0)), draw(st.integers(1, d.w - x0))
    operands = []
    for v in (y0, x0, hh, ww):
        if draw(st.booleans()):
            d.b.scalar(0, v)
            d.scalars.append(v)
            operands.append(("scalar", len(d.scalars) - 1))
        else:
            operands.append(v)
    return crop(*operands)


def _subpos_split(draw, d, r):
    params = P.Subpos(tuple(draw(st.permutations([0, 1, 2, 3]))))
    d.shapes = [(d.c, 2 * d.h, 2 * d.w)]
    return params


def _subpos_merge(draw, d, r):
    params = P.Subpos(tuple(draw(st.permutations([0, 1, 2, 3]))))
    d.n_in, d.shapes = 4, [(d.c, d.h, d.w)] * 4
    return params


def _fill(draw, d, r):
    if draw(st.booleans()):
        d.b.scalar(*sorted([draw(ints(*r["values"])), draw(ints(*r["values"]))]))
        d.scalars = [draw(st.integers(d.b.scalars[0].lo, d.b.scalars[0].hi))]
        params = P.Fill(1, 0)
    else:
        params = P.Fill(0, draw(ints(*r["values"])))
    d.extra["channels"] = draw(st.integers(1, 3))
    return params


def _epsilon(draw):
    return draw(st.one_of(st.integers(1, 9), st.integers(1, 2**64 - 1)))


#: Each operator's parameters (and any other inputs, scalars or range it needs), drawn.
PARAMS = {
    "conv": _conv, "conv_transpose": _conv_transpose,
    "rescale": lambda draw, d, r: P.Rescale(draw(rq_block(d.c, r=r))),
    "chscale": _chscale, "mul": _mul, "lut16": _lut16, "add": _two_alike, "gram": _gram,
    "apply": _apply, "concat": _concat, "chunk_add": _chunk_add, "split": _split,
    "pixel_shuffle": _pixel_shuffle, "pixel_unshuffle": _pixel_unshuffle, "clamp": _clamp,
    "leaky": lambda draw, d, r: P.Leaky(draw(ints(*r["mults"])), draw(st.integers(0, 63))),
    "pad_rep": lambda draw, d, r: P.PadRep(draw(st.integers(1, 4))),
    "crop_to": _crop_to, "crop": _crop, "subpos_split": _subpos_split,
    "subpos_merge": _subpos_merge, "fill": _fill,
    "igdn": lambda draw, d, r: igdn(tensor(draw, (d.c, d.c), -(2**31), 2**31 - 1),
                                    tensor(draw, (d.c,)), gf=draw(st.integers(0, 127)),
                                    frac=draw(st.integers(0, 127))),
    "layernorm_c": lambda draw, d, r: layernorm(tensor(draw, (d.c,), -(2**31), 2**31 - 1),
                                                tensor(draw, (d.c,)), eps=_epsilon(draw)),
    "l2norm": lambda draw, d, r: P.L2Norm(_epsilon(draw)),
    "elu": lambda draw, d, r: P.Elu(draw(ints())),
    **dict.fromkeys(("relu", "abs", "softmax", "sigmoid"), lambda draw, d, r: None),
}


@st.composite
def case(draw, name: str, r=FULL):
    """``(graph, inputs, scalars)`` for one operator ``name`` (its parameters drawn by
    :data:`PARAMS`): data inputs in table order; ``r`` is :data:`FULL`, :data:`NARROW` or
    :data:`MID`."""
    d = Drawn(draw, r)
    params = PARAMS[name](draw, d, r)
    xs = [d.b.input(s[0], d.lo, d.hi, max_h=s[1], max_w=s[2]) for s in d.shapes[:d.n_in]]
    out = d.b.op(name, xs if d.n_in > 1 else xs[0], params, **d.extra)
    d.b.output(*(out if isinstance(out, tuple) else (out,)))
    inputs = [tensor(draw, s, d.lo, d.hi) for s in d.shapes[:d.n_in]]
    return d.b.build(), inputs, d.scalars


@st.composite
def requantisation(draw):
    """A ``conv`` or ``rescale`` whose rq takes every rounding and bias placement the
    rewrites bring to half_up, shifts 0..63, multipliers up to 2^31 − 1, 8- and 16-bit
    operands; inputs at the range's ends and on rounding ties of both signs."""
    bits = draw(st.sampled_from([8, 16]))
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    shift = draw(st.integers(0, 63))
    mult = draw(st.one_of(st.none(), st.integers(0, 2**31 - 1), st.just(2**31 - 1)))
    mode = draw(st.sampled_from(P.ROUNDS))
    placement = draw(st.sampled_from(["pre", "post"]))
    bias = draw(st.integers(-(2**20), 2**20))
    b = GraphBuilder()
    x = b.input(2, lo, hi, max_h=2, max_w=3)
    block = rq(shift=shift, mult=mult, bias=[bias, -bias], bias_kind=placement, round=mode)
    if draw(st.booleans()):
        y = b.op("rescale", x, P.Rescale(block))
    else:
        w = draw(st.lists(st.integers(-128, 127), min_size=8, max_size=8))
        y = b.op("conv", x, conv(np.array(w).reshape(2, 2, 2, 1), pad=0, rq=block))
    b.output(y)
    g = b.build()
    half = (1 << (shift - 1)) if shift else 0
    ties = [v for v in (half, -half, 3 * half, -3 * half, half + 1, -half - 1) if lo <= v <= hi]
    values = (ties + [lo, hi, 0, 1, -1] * 2)[:12] + [lo] * 12
    tie_input = np.array(values[:12]).reshape(2, 2, 3)
    return g, [([np.full((2, 2, 3), lo)], []), ([np.full((2, 2, 3), hi)], []),
               ([tie_input], [])]
