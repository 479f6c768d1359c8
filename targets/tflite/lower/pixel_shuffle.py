"""``pixel_shuffle`` (§5.10): ``[1, H, W, C·r²]`` as ``[H, W, C, r, r]``, transposed to
``[H, r, W, r, C]``: channel ``c·r² + i·r + j`` goes to row offset ``i`` and column offset
``j`` of channel ``c``."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands
from ._shuffle import regrouped


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    r = op.params.r
    (x,), y = operands(b, ctx, op, ins)
    _, h, w, c = b.shapes[x]
    return [str(regrouped(b, x, [h, w, c // (r * r), r, r], [0, 3, 1, 4, 2], y))]
