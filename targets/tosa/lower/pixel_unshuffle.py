"""``pixel_unshuffle`` (§5.10): RESHAPE ``[1, H, r, W, r, C]`` → TRANSPOSE
``[0, 1, 3, 5, 2, 4]`` → RESHAPE ``[1, H, W, C·r²]``, the inverse of ``pixel_shuffle``'s."""


def lower(b, op, ins, ctx):
    r = op.params.r
    _, h, w, c = ctx.nhwc(op.inputs[0])
    h, w, dtype = h // r, w // r, b.dtype(ins[0])
    six = b.op("RESHAPE", [ins[0], b.shape_of([1, h, r, w, r, c])], (1, h, r, w, r, c), dtype)
    moved = b.op("TRANSPOSE", [six], (1, h, w, c, r, r), dtype, None, [0, 1, 3, 5, 2, 4])
    return [b.op("RESHAPE", [moved, b.shape_of([1, h, w, c * r * r])], (1, h, w, c * r * r),
                 dtype)]
