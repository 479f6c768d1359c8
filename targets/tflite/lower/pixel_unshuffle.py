"""``pixel_unshuffle`` (§5.10): ``SPACE_TO_DEPTH``, then a ``GATHER`` of its channels from
TFLite's depth order into §5.10's, the inverse of ``pixel_shuffle``'s; data movement, exact."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out
from ._shuffle import gathered, order


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    r = op.params.r
    c = ctx.shapes[op.inputs[0]][0]
    s = b.tensor(ctx.nhwc(op.outputs[0]))
    options = b.S.SpaceToDepthOptionsT()
    options.blockSize = r
    b.op("SPACE_TO_DEPTH", [int(ins[0])], [s], options, "SpaceToDepthOptions")
    y = int8_out(b, ctx, op)
    return [str(gathered(b, s, np.argsort(order(c, r)).astype(np.int32), y))]
