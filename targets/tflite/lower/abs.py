"""``abs`` (§5.5): ``ABS`` at scale 1, zero point 0 (int8's −128 has no int8 absolute value:
its certified output then asks for int16, and the input is cast first)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    xs, y = operands(b, ctx, op, ins)
    b.op("ABS", xs, [y])
    return [str(y)]
