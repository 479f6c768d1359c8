"""Random valid graphs for differential runs and property tests: chains of operators where a
runtime's compiler fuses neighbours (a requantisation then a clamp, a relu then a clamp
policy, a crop at a scalar offset then an elementwise operator), tensors whose ``clamp`` or
``check`` policy has bounds at the int32 ends and past 2^24 that are no float32 values,
scalars, and every rounding; each graph kept only where it meets its profile (``acc32`` or
``acc64``, §8), so an engine of that profile takes it.

Every choice goes through :class:`Choices`, so one generator serves a seeded
``random.Random`` (:class:`Seeded`: the differential benchmark, a fuzz run, reproducible from
its seed) and hypothesis's ``data.draw`` (:class:`Drawn`: property tests, which then shrink).
:func:`graph` makes one graph; :func:`probe_inputs` of :mod:`waiexport.probes` gives the
decodes to run it on.
"""

from __future__ import annotations

import random
from typing import Protocol, Sequence

import numpy as np

from waiexport import params as P
from waiexport.builder import GraphBuilder, conv, crop, rq
from waiexport.certificate import Verdict
from waiexport.graph import Graph
from waiexport.load import read_member
from waiexport.refusal import Refusal
from waiexport.whg1 import write

__all__ = ["Choices", "Seeded", "Drawn", "graph", "OPERATORS", "BOUNDS"]

I32 = (-(1 << 31), (1 << 31) - 1)
#: Bounds a policy or a clamp takes: the int32 ends, each side of 2^24 (2^24 + 1 and
#: 2^24 + 3 are no float32 values), and values past 2^30 that are none either.
BOUNDS = (I32[0], I32[0] + 1, -(1 << 24) - 3, -(1 << 24) - 1, -(1 << 24), -1, 0, 1,
          1 << 24, (1 << 24) + 1, (1 << 24) + 3, 1671950263, 1702881760, I32[1] - 1, I32[1])


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
    """Choices from hypothesis's ``data.draw`` (``st.data()``), so a failing example
    shrinks."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))

    def pick(self, options: Sequence):
        return self.data.draw(self.st.sampled_from(list(options)))


def _bound_pair(c: Choices, lo: int, hi: int) -> tuple[int, int]:
    """Two bounds inside ``[lo, hi]``, in order: from :data:`BOUNDS` or anywhere."""
    def one() -> int:
        inside = [b for b in BOUNDS if lo <= b <= hi]
        return c.pick(inside) if inside and c.integer(0, 2) else c.integer(lo, hi)
    a, b = one(), one()
    return min(a, b), max(a, b)


def _rq(c: Choices, channels: int, profile: str):
    """A requantisation block: every rounding, pre or post bias, a multiplier or none."""
    bits = 31 if profile == "acc32" else 40
    mult = c.pick([None, c.integer(0, (1 << 15) - 1), c.integer(-(1 << 15), (1 << 15) - 1)])
    bias = [c.integer(-(1 << 20), 1 << 20) for _ in range(channels)]
    return rq(shift=c.integer(0, bits), mult=mult, bias=bias,
              bias_kind=c.pick(["pre", "post"]), round=c.pick(P.ROUNDS))


def _conv(c: Choices, b: GraphBuilder, x: int, channels: int, profile: str):
    cout = c.integer(1, 3)
    k = c.integer(1, 3)
    w = np.array([c.integer(-128, 127) for _ in range(cout * channels * k * k)]).reshape(
        cout, channels, k, k)
    return b.op("conv", x, conv(w, pad=k // 2, rq=_rq(c, cout, profile))), cout


def _rescale(c: Choices, b: GraphBuilder, x: int, channels: int, profile: str):
    return b.op("rescale", x, P.Rescale(_rq(c, channels, profile))), channels


def _clamp(c: Choices, b: GraphBuilder, x: int, channels: int, profile: str):
    return b.op("clamp", x, P.Clamp(*_bound_pair(c, *I32))), channels


def _leaky(c: Choices, b: GraphBuilder, x: int, channels: int, profile: str):
    return b.op("leaky", x, P.Leaky(c.integer(0, 1 << 10), c.integer(0, 16))), channels


def _crop(c: Choices, b: GraphBuilder, x: int, channels: int, profile: str):
    """A 2×2 window at an offset in ``[0, 2]``, each offset a constant or a scalar (the
    inputs are at least 4×4)."""
    offsets = []
    for _ in range(2):
        if c.integer(0, 1):
            offsets.append(("scalar", b.scalar(0, 2)))
        else:
            offsets.append(c.integer(0, 2))
    return b.op("crop", x, crop(offsets[0], offsets[1], 2, 2)), channels


def _unary(name: str):
    return lambda c, b, x, channels, profile: (b.op(name, x), channels)


#: Each operator a chain draws from: ``(choices, builder, input, its channels, profile) →
#: (output, its channels)``.
OPERATORS = {"conv": _conv, "rescale": _rescale, "clamp": _clamp, "leaky": _leaky,
             "crop": _crop, "relu": _unary("relu"), "abs": _unary("abs")}


def _policy(c: Choices, b: GraphBuilder, out: int) -> None:
    """The tensor ``out`` given a ``clamp`` or ``check`` policy (or left derived), its
    bounds from :data:`BOUNDS`."""
    kind = c.pick(["derived", "derived", "clamp", "check"])
    if kind != "derived":
        rec = b.tensors[out]
        lo, hi = _bound_pair(c, *I32)
        b.tensors[out] = type(rec)(rec.channels, rec.exponent, kind, lo, hi)


def graph(c: Choices, profile: str = "acc32", longest: int = 4,
          operators: Sequence[str] = tuple(OPERATORS)) -> Graph | None:
    """A chain of one to ``longest`` operators of ``operators`` on one input (its range one
    of :data:`BOUNDS`' pairs, at least 4×4), each output's policy drawn (:func:`_policy`),
    at most one ``crop``, the last read by an ``add`` with the first's output where their
    shapes agree; ``None`` where the graph does not load or does not meet ``profile``."""
    b = GraphBuilder()
    channels = c.integer(1, 3)
    lo, hi = _bound_pair(c, -(1 << 20), 1 << 20) if c.integer(0, 1) else _bound_pair(c, *I32)
    x = b.input(channels, lo, hi, max_h=c.integer(4, 6), max_w=c.integer(4, 6))
    first, first_channels, cropped = None, 0, False
    for _ in range(c.integer(1, longest)):
        name = c.pick([o for o in operators if not (cropped and o == "crop")] or ["relu"])
        x, channels = OPERATORS[name](c, b, x, channels, profile)
        _policy(c, b, x)
        cropped |= name == "crop"
        if first is None:
            first, first_channels, first_cropped = x, channels, cropped
    if first != x and channels == first_channels and cropped == first_cropped and \
            c.integer(0, 1):
        x = b.op("add", [first, x])
    b.output(x)
    try:
        g = b.build()
        member = read_member(write(g))
    except (Refusal, ValueError):
        return None
    return g if Verdict.over([member]).meets(profile) else None
