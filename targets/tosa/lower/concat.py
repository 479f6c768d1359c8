"""``concat`` (§5.10): CONCAT on the channel axis, the inputs in one type (int32)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    xs = [b.cast(x, I32) for x in ins]
    return [b.op("CONCAT", xs, ctx.nhwc(op.outputs[0]), I32, None, 3)]
