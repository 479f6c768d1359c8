"""``pixel_shuffle`` (§5.10), channel ``c·r² + i·r + j`` to offset ``(i, j)``: ONNX's
``DepthToSpace`` ``CRD`` order. A target whose depth-to-space reads ``(i·r + j)·C′ + c`` (``DCR``)
gets ``DepthToSpace`` ``DCR``, the permutation folded into the producer's channels (§9.4). A
certified int8 tensor moves as int8 (:func:`._common.depth_to_space`)."""

from waiexport.descriptions import DCR
from ._common import depth_to_space, fits_i8


def lower(e, op, ins, ctx):
    r = op.params.r
    c = ctx.graph.tensor(op.inputs[0]).channels // (r * r)
    dcr = ctx.target is not None and ctx.target.depth_to_space == DCR
    return [depth_to_space(e, ins[0], c, r, r, fits_i8(ctx.range_of(op.inputs[0])),
                           "DCR" if dcr else "CRD")]
