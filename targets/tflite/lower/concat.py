"""``concat`` (§5.10): ``CONCATENATION`` on channels (NHWC's last axis), every operand int8 at
scale 1."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    y = int8_out(b, ctx, op)
    options = b.S.ConcatenationOptionsT()
    options.axis = 3
    b.op("CONCATENATION", [int(x) for x in ins], [y], options, "ConcatenationOptions")
    return [str(y)]
