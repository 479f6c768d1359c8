"""``pixel_shuffle`` (§5.10): RESHAPE ``[1, H, W, C, r, r]`` → TRANSPOSE ``[0, 1, 4, 2, 5, 3]``
→ RESHAPE ``[1, H·r, W·r, C]``, which takes channel ``c·r² + i·r + j`` to row offset ``i`` and
column offset ``j`` of channel ``c`` (measured exact)."""

from ._common import regroup


def lower(b, op, ins, ctx):
    r = op.params.r
    _, h, w, c = ctx.nhwc(op.outputs[0])
    return [regroup(b, ins[0], (1, h // r, w // r, c, r, r), [0, 1, 4, 2, 5, 3], (1, h, w, c))]
