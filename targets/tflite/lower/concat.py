"""``concat`` (§5.10): ``CONCATENATION`` on channels (NHWC's last axis), every operand of one
type at scale 1."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    xs, y = operands(b, ctx, op, ins)
    options = b.S.ConcatenationOptionsT()
    options.axis = 3
    b.op("CONCATENATION", xs, [y], options, "ConcatenationOptions")
    return [str(y)]
