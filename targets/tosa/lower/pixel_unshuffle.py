"""``pixel_unshuffle`` (§5.10): RESHAPE ``[1, H, r, W, r, C]`` → TRANSPOSE
``[0, 1, 3, 5, 2, 4]`` → RESHAPE ``[1, H, W, C·r²]``, the inverse of ``pixel_shuffle``'s."""

from ._common import regroup


def lower(b, op, ins, ctx):
    r = op.params.r
    _, h, w, c = ctx.nhwc(op.inputs[0])
    return [regroup(b, ins[0], (1, h // r, r, w // r, r, c), [0, 1, 3, 5, 2, 4],
                    (1, h // r, w // r, c * r * r))]
