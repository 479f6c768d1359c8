"""``relu`` (§5.5): ``RELU`` at scale 1, zero point 0: ``max(x, 0)`` in integers."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    xs, y = operands(b, ctx, op, ins)
    b.op("RELU", xs, [y])
    return [str(y)]
