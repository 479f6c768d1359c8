"""``abs`` (§5.5): int32 ABS."""

from ..build import I32


def lower(b, op, ins, ctx):
    x = b.cast(ins[0], I32)
    return [b.op("ABS", [x], b.shape(x), I32)]
