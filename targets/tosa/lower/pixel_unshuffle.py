"""``pixel_unshuffle`` (§5.10): RESHAPE ``[1, H, r, W, r, C]`` → TRANSPOSE
``[0, 1, 3, 5, 2, 4]`` → RESHAPE ``[1, H, W, C·r²]``, the inverse of ``pixel_shuffle``'s."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import TosaCtx, regroup


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    r = op.params.r
    _, h, w, c = ctx.nhwc(op.inputs[0])
    return [
        regroup(
            b,
            ins[0],
            (1, h // r, r, w // r, r, c),
            [0, 1, 3, 5, 2, 4],
            (1, h // r, w // r, c * r * r),
        )
    ]
