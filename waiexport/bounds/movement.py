"""Bound rules of the data-movement operators (§8.3): each output carries its input's
interval; ``concat`` and ``subpos_merge`` the hull of theirs; ``fill`` its value's."""

from __future__ import annotations

from .interval import hull
from .result import Result, Rules

RULES = Rules()


@RULES.rule(
    "split", "pixel_shuffle", "pixel_unshuffle", "pad_rep", "crop", "crop_to", "subpos_split"
)
def carry(op, ins, ctx) -> Result:
    """The (first) input's interval, for each output."""
    return Result({}, [ins[0]] * len(op.outputs))


@RULES.rule("concat", "subpos_merge")
def merge(op, ins, ctx) -> Result:
    """The hull of the inputs' intervals."""
    return Result({}, [hull(*ins)])


@RULES.rule("fill")
def fill(op, ins, ctx) -> Result:
    """``[v, v]`` for a constant ``v``, or its scalar's range."""
    p = op.params
    if p.kind == 0:
        return Result({}, [(p.value, p.value)])
    s = ctx.scalars[p.value]
    return Result({}, [(s.lo, s.hi)])
