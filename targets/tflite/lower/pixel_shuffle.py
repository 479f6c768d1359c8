"""``pixel_shuffle`` (§5.10): a ``GATHER`` of the channels into TFLite's depth order, then
``DEPTH_TO_SPACE``, which takes channel ``c·r² + i·r + j`` to row offset ``i`` and column
offset ``j`` of channel ``c`` (§9.4's depth-to-space order); data movement, exact."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out
from ._shuffle import gathered, order


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    r = op.params.r
    c = ctx.shapes[op.outputs[0]][0]
    x = gathered(b, int(ins[0]), order(c, r))
    y = int8_out(b, ctx, op)
    options = b.S.DepthToSpaceOptionsT()
    options.blockSize = r
    b.op("DEPTH_TO_SPACE", [x], [y], options, "DepthToSpaceOptions")
    return [str(y)]
