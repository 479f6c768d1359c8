"""``relu`` (§5.5): ``RELU`` on int8 (scale 1, zero point 0: ``max(x, 0)`` in integers)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    y = int8_out(b, ctx, op)
    b.op("RELU", [int(ins[0])], [y])
    return [str(y)]
