"""``pixel_shuffle`` (§5.10): RESHAPE ``[1, H, W, C, r, r]`` → TRANSPOSE ``[0, 1, 4, 2, 5, 3]``
→ RESHAPE ``[1, H·r, W·r, C]``, which takes channel ``c·r² + i·r + j`` to row offset ``i`` and
column offset ``j`` of channel ``c`` (measured exact)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import TosaCtx, regroup


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    r = op.params.r
    _, h, w, c = ctx.nhwc(op.outputs[0])
    return [regroup(b, ins[0], (1, h // r, w // r, c, r, r), [0, 1, 4, 2, 5, 3], (1, h, w, c))]
