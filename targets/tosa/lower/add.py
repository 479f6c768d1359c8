"""``add`` (§5.5): int32 ADD (TOSA's ADD is int32 only; the sum fits, the graph meets acc32)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    a, c = b.cast(ins[0], I32), b.cast(ins[1], I32)
    return [b.op("ADD", [a, c], b.shape(a), I32)]
