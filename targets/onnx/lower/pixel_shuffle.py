"""``pixel_shuffle`` (§5.10), channel ``c·r² + i·r + j`` to offset ``(i, j)``: ONNX's
``DepthToSpace`` ``CRD`` order, built from ``Reshape`` and ``Transpose`` because onnxruntime's
``DepthToSpace`` takes 8-bit tensors only."""


def lower(e, op, ins, ctx):
    r = op.params.r
    c = ctx.graph.tensor(op.inputs[0]).channels // (r * r)
    h, w = e.hw(ins[0])
    y = e.reshape(ins[0], [1, c, r, r, h, w])
    y = e.node("Transpose", [y], perm=[0, 1, 4, 2, 5, 3])
    return [e.reshape(y, [1, c, e.times(h, r), e.times(w, r)])]
