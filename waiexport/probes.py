"""Inputs at the ends of a graph's declared ranges, the decodes every exactness check starts
from: all at the low end, all at the high end, alternating, and random within range. The
vector cases (``conformance/cases``) and the exporter's self-check both take them from here."""

from __future__ import annotations

import numpy as np

from .graph import Graph
from .plan import run_plan
from .refusal import Refusal

__all__ = ["PICKS", "at_ends", "extremes", "probe_inputs"]

#: The four kinds of input, in the order every caller draws them.
PICKS = ("lo", "hi", "alternate", "random")


def at_ends(recs, shapes, pick: str, rng) -> list[np.ndarray]:
    """One array per tensor record and shape: every element at the record's ``lo``, at its
    ``hi``, alternating (``lo`` first), or drawn from ``rng`` within ``[lo, hi]``."""
    out = []
    for rec, shape in zip(recs, shapes):
        if pick == "random":
            x = rng.integers(rec.lo, rec.hi, size=shape, endpoint=True)
        else:
            x = np.full(shape, rec.hi if pick == "hi" else rec.lo, dtype=np.int64)
            if pick == "alternate":
                x.reshape(-1)[1::2] = rec.hi
        out.append(x)
    return out


def extremes(g: Graph, shape_of, rng, scalars=()) -> list:
    """One decode of each pick (:data:`PICKS`) of the graph's data inputs, input ``i`` on the
    shape ``shape_of(i)``: ``[(inputs, scalars)]``."""
    data = [i for i in g.inputs if i.kind == "data"]
    recs = [g.tensor(i.tensor) for i in data]
    return [
        (at_ends(recs, [shape_of(k) for k in range(len(data))], pick, rng), list(scalars))
        for pick in PICKS
    ]


def _sizes(g: Graph) -> list[tuple[int, int]]:
    """Input sizes to probe with: the declared ones, else a few small ones."""
    if g.declares_sizes:
        return [(g.inputs[0].max_h, g.inputs[0].max_w)]
    return [(7, 5), (4, 4), (1, 1), (2, 3), (8, 8), (16, 16)]


def probe_inputs(g: Graph, seed: int = 0, sizes=None) -> list:
    """Decodes of each pick (:data:`PICKS`) of every input, state inputs included, and the
    scalars at their ends (random for ``random``), on the first size the graph plans of
    ``sizes`` (``[(H, W)]``) or of a few of its own: ``[(inputs, scalars)]``."""
    rng = np.random.default_rng(seed)
    recs = [g.tensor(i.tensor) for i in g.inputs]
    out = []
    for h, w in sizes or _sizes(g):
        shapes = [
            (
                rec.channels,
                i.max_h if g.declares_sizes and not sizes else h,
                i.max_w if g.declares_sizes and not sizes else w,
            )
            for i, rec in zip(g.inputs, recs)
        ]
        for pick in PICKS:
            scalars = [
                s.lo
                if pick in ("lo", "alternate")
                else s.hi
                if pick == "hi"
                else int(rng.integers(s.lo, s.hi + 1))
                for s in g.scalars
            ]
            try:
                run_plan(g, shapes, scalars)
            except Refusal:
                continue
            out.append((at_ends(recs, shapes, pick, rng), scalars))
        if out:
            return out
    return out
