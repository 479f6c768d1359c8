"""``relu`` (§5.5): int32 MAXIMUM with 0."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    x = b.cast(ins[0], I32)
    return [b.op("MAXIMUM", [x, b.const([0], I32, [1, 1, 1, 1])], b.shape(x), I32, None, b.nan())]
