"""``abs`` (§5.5): int32 ABS."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    x = b.cast(ins[0], I32)
    return [b.op("ABS", [x], b.shape(x), I32)]
