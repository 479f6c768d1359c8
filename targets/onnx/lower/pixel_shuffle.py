"""``pixel_shuffle`` (§5.10), channel ``c·r² + i·r + j`` to offset ``(i, j)``: ONNX's
``DepthToSpace`` ``CRD`` order. A target whose depth-to-space reads ``(i·r + j)·C′ + c`` (``DCR``)
gets ``DepthToSpace`` ``DCR``, the permutation folded into the producer's channels (§9.4); an
int8 tensor runs onnxruntime's ``DepthToSpace`` (8-bit only there), a wider one its
``Reshape``–``Transpose`` form."""

from ...descriptions import DCR
from ..emit import I8, I32


def lower(e, op, ins, ctx):
    r = op.params.r
    c = ctx.graph.tensor(op.inputs[0]).channels // (r * r)
    h, w = e.hw(ins[0])
    if ctx.target is not None and ctx.target.depth_to_space == DCR:
        lo, hi = ctx.range_of(op.inputs[0])
        if -128 <= lo and hi <= 127:
            return [e.cast(e.node("DepthToSpace", [e.cast(ins[0], I8)], blocksize=r,
                                  mode="DCR"), I32)]
        y = e.reshape(ins[0], [1, r, r, c, h, w])
        y = e.node("Transpose", [y], perm=[0, 3, 4, 1, 5, 2])
    else:
        y = e.reshape(ins[0], [1, c, r, r, h, w])
        y = e.node("Transpose", [y], perm=[0, 1, 4, 2, 5, 3])
    return [e.reshape(y, [1, c, e.times(h, r), e.times(w, r)])]
