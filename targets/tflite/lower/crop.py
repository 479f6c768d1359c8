"""``crop`` (§5.10) with constant operands (the npu subset's): a ``SLICE`` of rows and
columns."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands, sliced


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    p = op.params
    (x,), y = operands(b, ctx, op, ins[:1])
    sliced(b, x, y, [0, p.y0.value, p.x0.value, 0])
    return [str(y)]
