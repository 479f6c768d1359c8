"""``add`` (§5.5): int32 ADD (TOSA's ADD is int32 only; the sum fits, the graph meets acc32)."""

from ..build import I32


def lower(b, op, ins, ctx):
    a, c = b.cast(ins[0], I32), b.cast(ins[1], I32)
    return [b.op("ADD", [a, c], b.shape(a), I32)]
