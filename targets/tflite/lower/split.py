"""``split`` (§5.10): a ``SLICE`` of a run of channels."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out, sliced


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    y = int8_out(b, ctx, op)
    sliced(b, int(ins[0]), y, [0, 0, 0, op.params.start])
    return [str(y)]
