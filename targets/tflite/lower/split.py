"""``split`` (§5.10): a ``SLICE`` of a run of channels."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands, sliced


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    (x,), y = operands(b, ctx, op, ins)
    sliced(b, x, y, [0, 0, 0, op.params.start])
    return [str(y)]
