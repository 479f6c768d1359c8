"""``clamp`` (§5.5): int32 MAXIMUM then MINIMUM (TOSA's CLAMP takes int8/int16 only)."""

from ._common import clip


def lower(b, op, ins, ctx):
    return [clip(b, ins[0], op.params.lo, op.params.hi)]
