"""``pixel_unshuffle`` (§5.10): ``[1, H·r, W·r, C]`` as ``[H, r, W, r, C]``, transposed to
``[H, W, C, r, r]``, the inverse of ``pixel_shuffle``'s."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands
from ._shuffle import regrouped


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    r = op.params.r
    (x,), y = operands(b, ctx, op, ins)
    _, h, w, c = b.shapes[x]
    return [str(regrouped(b, x, [h // r, r, w // r, r, c], [0, 2, 4, 1, 3], y))]
