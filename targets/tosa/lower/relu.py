"""``relu`` (§5.5): int32 MAXIMUM with 0."""

from ..build import I32


def lower(b, op, ins, ctx):
    x = b.cast(ins[0], I32)
    return [b.op("MAXIMUM", [x, b.const([0], I32, [1, 1, 1, 1])], b.shape(x), I32, None,
                 b.nan())]
