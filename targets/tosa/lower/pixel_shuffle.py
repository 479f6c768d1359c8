"""``pixel_shuffle`` (§5.10): RESHAPE ``[1, H, W, C, r, r]`` → TRANSPOSE ``[0, 1, 4, 2, 5, 3]``
→ RESHAPE ``[1, H·r, W·r, C]``, which takes channel ``c·r² + i·r + j`` to row offset ``i`` and
column offset ``j`` of channel ``c`` (measured exact)."""


def lower(b, op, ins, ctx):
    r = op.params.r
    _, h, w, c = ctx.nhwc(op.outputs[0])
    h, w, dtype = h // r, w // r, b.dtype(ins[0])
    six = b.op("RESHAPE", [ins[0], b.shape_of([1, h, w, c, r, r])], (1, h, w, c, r, r), dtype)
    moved = b.op("TRANSPOSE", [six], (1, h, r, w, r, c), dtype, None, [0, 1, 4, 2, 5, 3])
    return [b.op("RESHAPE", [moved, b.shape_of([1, h * r, w * r, c])], (1, h * r, w * r, c),
                 dtype)]
