"""Random valid graphs, the one generator behind the property tests, the differential benchmark
and a fuzz run: one-operator cases of each of the 30 operators (:func:`case`), requantisations
at their rounding ties (:func:`requantisation`), and chains of them (:func:`graph`), where a
runtime's compiler fuses neighbours (a requantisation then a clamp, a relu then a clamp
policy, a crop at a scalar offset then an elementwise operator), with tensors whose ``clamp``
or ``check`` policy has bounds at the int32 ends and past 2^24 that are no float32 values,
scalars, every rounding, and a state input that carries an output from one decode of a
sequence to the next (§10.2).

Every choice goes through :class:`Choices`, so one generator serves a seeded
``random.Random`` (:class:`Seeded`: the differential benchmark, a fuzz run, reproducible from
its seed) and hypothesis's ``draw`` (:class:`Drawn`: property tests, which then shrink).
:func:`probe_inputs` of :mod:`waiexport.probes` gives the decodes to run a graph on, and
:func:`sequence` a sequence's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

import numpy as np

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
from waiexport.certificate import Verdict
from waiexport.graph import Graph
from waiexport.load import read_member
from waiexport.optable import info
from waiexport.plan import SHAPES, ShapeCtx
from waiexport.probes import probe_inputs
from waiexport.refusal import Refusal
from waiexport.whg1 import write

__all__ = [
    "Choices",
    "Seeded",
    "Drawn",
    "case",
    "requantisation",
    "graph",
    "sequence",
    "PARAMS",
    "BOUNDS",
    "FULL",
    "NARROW",
    "MID",
]

I64 = (-(1 << 63), (1 << 63) - 1)
I32 = (-(1 << 31), (1 << 31) - 1)
EDGES = (I64[0], I64[1], I32[0], I32[1], -1, 0, 1)
#: Bounds a policy or a clamp takes: the int32 ends, each side of 2^24 (2^24 + 1 and
#: 2^24 + 3 are no float32 values), and values past 2^30 that are none either.
BOUNDS = (
    I32[0],
    I32[0] + 1,
    -(1 << 24) - 3,
    -(1 << 24) - 1,
    -(1 << 24),
    -1,
    0,
    1,
    1 << 24,
    (1 << 24) + 1,
    (1 << 24) + 3,
    1671950263,
    1702881760,
    I32[1] - 1,
    I32[1],
)

#: Value, multiplier and bias ranges, and the widest weight and shift: anything ``wai-ops/1``
#: allows, or ranges narrow enough that most graphs meet ``acc32`` (for engines of that profile).
FULL = dict(values=I64, mults=I64, biases=I64, w_bytes=(1, 2, 4, 8), shift=127)
NARROW = dict(
    values=(-(1 << 12), 1 << 12),
    mults=(-(1 << 10), 1 << 10),
    biases=(-(1 << 16), 1 << 16),
    w_bytes=(1, 2),
    shift=40,
)
#: Ranges past 32 bits where most graphs still meet ``acc64`` (for engines of that profile).
MID = dict(
    values=(-(1 << 40), 1 << 40),
    mults=(-(1 << 20), 1 << 20),
    biases=(-(1 << 50), 1 << 50),
    w_bytes=(1, 2, 4),
    shift=127,
)
RANGES = {"acc32": NARROW, "acc64": MID}


class Choices(Protocol):
    """Where a generator's choices come from."""

    def integer(self, lo: int, hi: int) -> int:
        """A whole number in ``[lo, hi]``."""

    def pick(self, options: Sequence):
        """One of ``options``."""


class Seeded:
    """Choices from a seeded ``random.Random``: the same seed, the same graphs."""

    def __init__(self, seed: int | random.Random):
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, options: Sequence):
        return options[self.rng.randrange(len(options))]


class Drawn:
    """Choices from hypothesis's ``draw`` (``st.data().draw`` or a composite's), so a failing
    example shrinks."""

    def __init__(self, draw: Callable):
        from hypothesis import strategies as st

        self.draw, self.st = draw, st

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def pick(self, options: Sequence):
        return self.draw(self.st.sampled_from(list(options)))


def ints(c: Choices, lo: int = I64[0], hi: int = I64[1]) -> int:
    """A small value, a value anywhere in ``[lo, hi]``, or one of its ends and edges."""
    kind = c.integer(0, 2)
    if kind == 0:
        return c.integer(max(lo, -8), min(hi, 8))
    if kind == 1:
        return c.integer(lo, hi)
    return c.pick([v for v in (*EDGES, lo, hi) if lo <= v <= hi])


def tensor(c: Choices, shape, lo: int = I64[0], hi: int = I64[1]) -> np.ndarray:
    """An array of ``shape`` whose every element is :func:`ints` of ``[lo, hi]``."""
    n = int(np.prod(shape))
    return np.array([ints(c, lo, hi) for _ in range(n)], dtype=object).reshape(shape)


def rq_block(
    c: Choices, channels: int, r: dict, allow_bias: bool = True, allow_mult: bool = True
) -> P.RQ:
    """A requantisation block (§5.1): no multiplier, one or one per channel; one shift or one
    per channel; no bias, pre or post; every rounding."""
    m_kind = c.integer(0, 2 if allow_mult else 0)
    mult = [
        None,
        lambda: ints(c, *r["mults"]),
        lambda: [ints(c, *r["mults"]) for _ in range(channels)],
    ][m_kind]
    shift = (
        c.integer(0, r["shift"])
        if c.integer(0, 1)
        else [c.integer(0, r["shift"]) for _ in range(channels)]
    )
    bias_kind = c.pick(["none", "pre", "post"] if allow_bias else ["none"])
    bias = None if bias_kind == "none" else [ints(c, *r["biases"]) for _ in range(channels)]
    return rq(
        shift=shift, mult=mult and mult(), bias=bias, bias_kind=bias_kind, round=c.pick(P.ROUNDS)
    )


def _weights(c: Choices, shape, r: dict):
    w_bytes = c.pick(r["w_bytes"])
    lim = 1 << (8 * w_bytes - 1)
    return tensor(c, shape, -lim, lim - 1), w_bytes


@dataclass
class Site:
    """What one operator is drawn into: the builder (for scalars), the shapes its data
    inputs take (the first ``[c, h, w]`` unless its parameters need another), how many of
    them it reads, the range its new inputs take, and the builder's extra keywords."""

    b: GraphBuilder
    c: int
    h: int
    w: int
    lo: int
    hi: int
    shapes: list = field(default_factory=list)
    n_in: int = 1
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        self.shapes = self.shapes or [(self.c, self.h, self.w)]

    def scalar(self, lo: int, hi: int) -> int:
        """A new scalar of ``[lo, hi]``; its index."""
        return self.b.scalar(lo, hi)


def _conv(c: Choices, d: Site, r: dict):
    groups = c.pick([1, d.c])
    cout = groups * c.integer(1, 2) if groups > 1 else c.integer(1, 3)
    ph, pw = c.integer(0, 2), c.integer(0, 2)
    kh, kw = c.integer(1, min(3, d.h + 2 * ph)), c.integer(1, min(3, d.w + 2 * pw))
    wt, wb = _weights(c, (cout, d.c // groups, kh, kw), r)
    return conv(
        wt,
        stride=(c.integer(1, 3), c.integer(1, 3)),
        pad=(ph, pw),
        groups=groups,
        w_bytes=wb,
        rq=rq_block(c, cout, r),
    )


def _conv_transpose(c: Choices, d: Site, r: dict):
    cout = c.integer(1, 3)
    kh, kw = c.integer(1, 4), c.integer(1, 4)
    sh, sw = c.integer(1, 3), c.integer(1, 3)
    oph, opw = c.integer(0, 3), c.integer(0, 3)
    ph = c.integer(0, min(3, ((d.h - 1) * sh + kh + oph - 1) // 2))
    pw = c.integer(0, min(3, ((d.w - 1) * sw + kw + opw - 1) // 2))
    wt, wb = _weights(c, (d.c, cout, kh, kw), r)
    return conv_transpose(
        wt, stride=(sh, sw), pad=(ph, pw), out_pad=(oph, opw), w_bytes=wb, rq=rq_block(c, cout, r)
    )


def _chscale(c: Choices, d: Site, r: dict):
    n_rows = c.integer(1, 3)
    return chscale(
        d.scalar(0, n_rows - 1),
        tensor(c, (n_rows, d.c), *r["mults"]),
        shift=c.integer(0, r["shift"]),
        round=c.pick(P.ROUNDS),
    )


def _mul(c: Choices, d: Site, r: dict):
    d.n_in = 2
    d.shapes.append((c.pick([d.c, 1]), d.h, d.w))
    return P.Mul(rq_block(c, d.c, r, allow_bias=False))


def _lut16(c: Choices, d: Site, r: dict):
    d.lo, d.hi = -32767, 32767
    eight = [c.integer(-32768, 32767) for _ in range(8)]
    return lut16(np.array([0] + eight * 8192, dtype=np.int64)[:65536])


def _two_alike(c: Choices, d: Site, r: dict):
    d.n_in = 2
    d.shapes.append((d.c, d.h, d.w))


def _gram(c: Choices, d: Site, r: dict):
    _two_alike(c, d, r)
    return P.Contraction(
        c.pick([g for g in (1, 2, 4) if d.c % g == 0]),
        rq(shift=c.integer(0, 127), round=c.pick(P.ROUNDS)),
    )


def _apply(c: Choices, d: Site, r: dict):
    groups = c.pick([g for g in (1, 2, 4) if d.c % g == 0])
    d.n_in = 2
    d.shapes = [(d.c, 1, d.c // groups), (d.c, d.h, d.w)]
    return P.Contraction(groups, rq(shift=c.integer(0, 127), round=c.pick(P.ROUNDS)))


def _concat(c: Choices, d: Site, r: dict):
    d.n_in = c.integer(2, 3)
    d.shapes = [(d.c, d.h, d.w)] + [(c.integer(1, 3), d.h, d.w) for _ in range(d.n_in - 1)]


def _chunk_add(c: Choices, d: Site, r: dict):
    d.shapes = [(2 * d.c, d.h, d.w)]


def _split(c: Choices, d: Site, r: dict):
    start = c.integer(0, d.c - 1)
    return P.Split(start, c.integer(1, d.c - start))


def _pixel_shuffle(c: Choices, d: Site, r: dict):
    k = c.integer(1, 2)
    d.shapes = [(d.c * k * k, d.h, d.w)]
    return P.Factor(k)


def _pixel_unshuffle(c: Choices, d: Site, r: dict):
    k = c.integer(1, 2)
    d.shapes = [(d.c, d.h * k, d.w * k)]
    return P.Factor(k)


def _clamp(c: Choices, d: Site, r: dict):
    return P.Clamp(*_bound_pair(c, *r["values"]))


def _crop_to(c: Choices, d: Site, r: dict):
    d.n_in = 2
    d.shapes.append((c.integer(1, 3), c.integer(1, d.h), c.integer(1, d.w)))


def _crop(c: Choices, d: Site, r: dict):
    """A window inside the input; each operand a constant or a scalar: an offset's scalar
    ranges from 0 to it, a size's from 1 or from itself to it, so the window always fits
    and, at the scalars' highest values, has the size drawn."""
    y0, x0 = c.integer(0, d.h - 1), c.integer(0, d.w - 1)
    hh, ww = c.integer(1, d.h - y0), c.integer(1, d.w - x0)
    operands = []
    for v, least in ((y0, 0), (x0, 0), (hh, c.pick([1, hh])), (ww, c.pick([1, ww]))):
        operands.append(("scalar", d.scalar(least, v)) if c.integer(0, 1) else v)
    return crop(*operands)


def _subpos_split(c: Choices, d: Site, r: dict):
    d.shapes = [(d.c, 2 * d.h, 2 * d.w)]
    return P.Subpos(tuple(_permutation(c, 4)))


def _subpos_merge(c: Choices, d: Site, r: dict):
    d.n_in, d.shapes = 4, [(d.c, d.h, d.w)] * 4
    return P.Subpos(tuple(_permutation(c, 4)))


def _permutation(c: Choices, n: int) -> list[int]:
    rest, out = list(range(n)), []
    while rest:
        out.append(rest.pop(c.integer(0, len(rest) - 1)))
    return out


def _fill(c: Choices, d: Site, r: dict):
    if c.integer(0, 1):
        lo, hi = sorted([ints(c, *r["values"]), ints(c, *r["values"])])
        params = P.Fill(1, d.scalar(lo, hi))
    else:
        params = P.Fill(0, ints(c, *r["values"]))
    d.extra["channels"] = c.integer(1, 3)
    return params


def _epsilon(c: Choices) -> int:
    return c.integer(1, 9) if c.integer(0, 1) else c.integer(1, (1 << 64) - 1)


def _i32(span: tuple[int, int]) -> tuple[int, int]:
    """``span`` within i32 (a γ's widths are 4 or 8 bytes, §5.7)."""
    return max(span[0], I32[0]), min(span[1], I32[1])


def _none(c: Choices, d: Site, r: dict):
    return None


#: Each operator's parameters (and any other inputs, scalars or range it needs), drawn:
#: ``(choices, site, ranges) → parameters``.
PARAMS: dict[str, Callable] = {
    "conv": _conv,
    "conv_transpose": _conv_transpose,
    "rescale": lambda c, d, r: P.Rescale(rq_block(c, d.c, r)),
    "chscale": _chscale,
    "mul": _mul,
    "lut16": _lut16,
    "add": _two_alike,
    "gram": _gram,
    "apply": _apply,
    "concat": _concat,
    "chunk_add": _chunk_add,
    "split": _split,
    "pixel_shuffle": _pixel_shuffle,
    "pixel_unshuffle": _pixel_unshuffle,
    "clamp": _clamp,
    "leaky": lambda c, d, r: P.Leaky(ints(c, *r["mults"]), c.integer(0, 63)),
    "pad_rep": lambda c, d, r: P.PadRep(c.integer(1, 4)),
    "crop_to": _crop_to,
    "crop": _crop,
    "subpos_split": _subpos_split,
    "subpos_merge": _subpos_merge,
    "fill": _fill,
    "igdn": lambda c, d, r: igdn(
        tensor(c, (d.c, d.c), *_i32(r["mults"])),
        tensor(c, (d.c,), *r["biases"]),
        gf=c.integer(0, 127),
        frac=c.integer(0, 127),
    ),
    "layernorm_c": lambda c, d, r: layernorm(
        tensor(c, (d.c,), *_i32(r["mults"])), tensor(c, (d.c,), *r["biases"]), eps=_epsilon(c)
    ),
    "l2norm": lambda c, d, r: P.L2Norm(_epsilon(c)),
    "elu": lambda c, d, r: P.Elu(ints(c)),
    **dict.fromkeys(("relu", "abs", "softmax", "sigmoid"), _none),
}


def case(c: Choices, name: str, r: dict = FULL):
    """``(graph, inputs, scalars)`` for one operator ``name`` (its parameters drawn by
    :data:`PARAMS`) on one to four new inputs (``[c, h, w]`` up to 4×5×5) and values anywhere
    in their range; ``r`` is :data:`FULL`, :data:`NARROW` or :data:`MID`. Raises ``Refusal``
    where the drawn graph breaks a load check."""
    d = Site(GraphBuilder(), c.integer(1, 4), c.integer(1, 5), c.integer(1, 5), *r["values"])
    params = PARAMS[name](c, d, r)
    xs = [d.b.input(s[0], d.lo, d.hi, max_h=s[1], max_w=s[2]) for s in d.shapes[: d.n_in]]
    out = d.b.op(name, xs if d.n_in > 1 else xs[0], params, **d.extra)
    d.b.output(*(out if isinstance(out, tuple) else (out,)))
    inputs = [tensor(c, s, d.lo, d.hi) for s in d.shapes[: d.n_in]]
    scalars = [c.integer(s.lo, s.hi) if c.integer(0, 1) else s.hi for s in d.b.scalars]
    return d.b.build(), inputs, scalars


def requantisation(c: Choices, eight_bit: bool = False):
    """``(graph, decodes)``: a ``conv`` or ``rescale`` whose rq takes every rounding and bias
    placement the rewrites bring to half_up, shifts 0..63, multipliers up to 2^31 − 1, 8- and
    16-bit operands; inputs at the range's ends and on rounding ties of both signs. With
    ``eight_bit``, what an 8-bit NPU takes: int8 operands, shifts 0..24, no multiplier or a
    power of two, the output clamped to int8."""
    bits = 8 if eight_bit else c.pick([8, 16])
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    shift = c.integer(0, 24 if eight_bit else 63)
    mult = c.pick(
        [None, 1 << c.integer(0, 6)] if eight_bit else [None, c.integer(0, I32[1]), I32[1]]
    )
    bias = c.integer(-(1 << 12), 1 << 12) if eight_bit else c.integer(-(1 << 20), 1 << 20)
    b = GraphBuilder()
    x = b.input(2, lo, hi, max_h=2, max_w=3)
    block = rq(
        shift=shift,
        mult=mult,
        bias=[bias, -bias],
        bias_kind=c.pick(["pre", "post"]),
        round=c.pick(P.ROUNDS),
    )
    out = dict(lo=-128, hi=127, policy="clamp") if eight_bit else {}
    if c.integer(0, 1):
        y = b.op("rescale", x, P.Rescale(block), **out)
    else:
        w = [c.integer(-128, 127) for _ in range(8)]
        y = b.op("conv", x, conv(np.array(w).reshape(2, 2, 2, 1), pad=0, rq=block), **out)
    b.output(y)
    half = (1 << (shift - 1)) if shift else 0
    ties = [v for v in (half, -half, 3 * half, -3 * half, half + 1, -half - 1) if lo <= v <= hi]
    values = (ties + [lo, hi, 0, 1, -1] * 2 + [lo] * 12)[:12]
    return b.build(), [
        ([np.full((2, 2, 3), lo)], []),
        ([np.full((2, 2, 3), hi)], []),
        ([np.array(values).reshape(2, 2, 3)], []),
    ]


def _bound_pair(c: Choices, lo: int, hi: int) -> tuple[int, int]:
    """Two bounds inside ``[lo, hi]``, in order: from :data:`BOUNDS` or anywhere."""

    def one() -> int:
        inside = [b for b in BOUNDS if lo <= b <= hi]
        return c.pick(inside) if inside and c.integer(0, 2) else c.integer(lo, hi)

    a, b = one(), one()
    return min(a, b), max(a, b)


def _policy(c: Choices, b: GraphBuilder, out: int, profile: str) -> None:
    """The tensor ``out`` given a ``clamp`` policy, or under ``acc64`` a ``check`` one (none
    inside an ``acc32`` graph, §7.2), or left derived; its bounds from :data:`BOUNDS`, a
    check's about 0 so that most producers' ranges meet it (§8: else ``model_mismatch``)."""
    kind = c.pick(["derived", "derived", "clamp"] + ["check"] * (profile == "acc64"))
    if kind == "clamp":
        _restrict(b, out, kind, *_bound_pair(c, *I32))
    elif kind == "check":
        _restrict(b, out, kind, _bound_pair(c, I32[0], 0)[0], _bound_pair(c, 0, I32[1])[1])


def _restrict(b: GraphBuilder, t: int, kind: str, lo: int, hi: int) -> None:
    rec = b.tensors[t]
    b.tensors[t] = type(rec)(rec.channels, rec.exponent, kind, lo, hi)


class _Chain:
    """A graph growing one operator at a time, each tensor's shape at the declared sizes."""

    def __init__(self, c: Choices, profile: str):
        self.c, self.profile, self.r, self.b = c, profile, RANGES[profile], GraphBuilder()
        self.shape: dict[int, tuple] = {}
        self.loose: list[int] = []  # tensors no operator reads yet: graph outputs

    def input(self, shape, lo: int, hi: int) -> int:
        t = self.b.input(shape[0], lo, hi, max_h=shape[1], max_w=shape[2])
        self.shape[t] = tuple(shape)
        return t

    def _read(self, shape, lo: int, hi: int, avoid: int) -> int:
        """A tensor of ``shape`` that is there already, or a new input."""
        there = [t for t, s in self.shape.items() if s == tuple(shape) and t != avoid]
        return self.c.pick(there) if there and self.c.integer(0, 1) else self.input(shape, lo, hi)

    def step(self, name: str, x: int) -> int:
        """Operator ``name`` reading ``x`` where a slot takes its shape, new inputs or earlier
        tensors in the others; its output (one of them, for ``subpos_split``), its policy
        drawn. Where no slot takes ``x``, ``x`` becomes a graph output."""
        c, b = self.c, self.b
        d = Site(b, *self.shape[x], *self.r["values"])
        params = PARAMS[name](c, d, self.r)
        slots = d.shapes[: d.n_in]
        at = next((k for k, s in enumerate(slots) if tuple(s) == self.shape[x]), None)
        if at is None:
            self.loose.append(x)
        elif (d.lo, d.hi) != tuple(self.r["values"]):
            _restrict(b, x, "check" if b.tensors[x].policy == "check" else "clamp", d.lo, d.hi)
        ins = [x if k == at else self._read(s, d.lo, d.hi, x) for k, s in enumerate(slots)]
        self.loose = [t for t in self.loose if t not in ins]
        outs = b.op(name, ins if d.n_in > 1 else ins[0], params, **d.extra)
        outs = outs if isinstance(outs, tuple) else (outs,)
        shapes = SHAPES[name](
            params,
            [self.shape[t] for t in ins],
            ShapeCtx(tuple(b.tensors[t].channels for t in outs), self._side),
        )
        self.shape.update(zip(outs, map(tuple, shapes)))
        for t in outs:
            _policy(c, b, t, self.profile)
        y = c.pick(outs)
        self.loose += [t for t in outs if t != y]
        return y

    def _side(self, start: P.Operand, length: P.Operand, size: int) -> tuple[int, int]:
        return tuple(
            o.value if o.kind == 0 else self.b.scalars[o.value].hi for o in (start, length)
        )

    def carry(self, y: int) -> int:
        """``y`` plus a state input that carries that sum to the next decode, where ``y`` has
        input 0's sides (§10.2)."""
        first = self.b.inputs[0]
        if self.shape[y][1:] != (first.max_h, first.max_w):
            return y
        lo, hi = _bound_pair(self.c, *I32)
        src = len(self.b.outputs) + len(self.loose)
        s = self.b.state(
            self.shape[y][0],
            lo,
            hi,
            src=src,
            init=self.c.integer(lo, hi),
            max_h=first.max_h,
            max_w=first.max_w,
        )
        self.shape[s] = self.shape[y]
        out = self.b.op("add", [y, s])
        _policy(self.c, self.b, out, self.profile)
        return out


def graph(
    c: Choices, profile: str = "acc32", longest: int = 4, operators: Sequence[str] | None = None
) -> Graph | None:
    """A chain of one to ``longest`` operators of ``operators`` (by default every operator
    the profile admits: under ``acc32`` those of ``wai-ops/1-i32``, §7.3) from one input (its
    range one of :data:`BOUNDS`' pairs, at least 4×4): each reads the last one's output where
    it takes its shape (:meth:`_Chain.step`), each output's policy drawn; at the end, maybe an
    ``add`` with the first output where their shapes agree, and maybe a state input carried
    from decode to decode. ``None`` where the graph does not load or does not meet ``profile``
    (``acc32`` draws :data:`NARROW` parameters, ``acc64`` :data:`MID`)."""
    operators = operators or [n for n in PARAMS if profile == "acc64" or info(n).i32]
    chain = _Chain(c, profile)
    shape = (c.integer(1, 3), c.integer(4, 6), c.integer(4, 6))
    lo, hi = _bound_pair(c, -(1 << 20), 1 << 20) if c.integer(0, 1) else _bound_pair(c, *I32)
    x = first = chain.input(shape, lo, hi)
    for k in range(c.integer(1, longest)):
        x = chain.step(c.pick(operators), x)
        first = x if k == 0 else first
    if first != x and chain.shape[first] == chain.shape[x] and c.integer(0, 1):
        x = chain.b.op("add", [first, x])
        chain.shape[x] = chain.shape[first]
    if c.integer(0, 3) == 0:
        x = chain.carry(x)
    chain.b.output(*chain.loose, x)
    try:
        member = read_member(write(chain.b.graph()))  # the load checks, as build makes
    except (Refusal, ValueError):
        return None
    return member.graph if Verdict.over([member]).meets(profile) else None


def sequence(g: Graph, seed: int = 0, steps: int = 3) -> list:
    """``steps`` decodes of one sequence (§10.2), the data inputs alone (state is carried):
    the probe inputs (:func:`~waiexport.probes.probe_inputs`) in turn."""
    data = [k for k, i in enumerate(g.inputs) if i.kind == "data"]
    probes = probe_inputs(g, seed=seed)
    return (
        [([inputs[k] for k in data], scalars) for inputs, scalars in (probes * steps)[:steps]]
        if probes
        else []
    )
