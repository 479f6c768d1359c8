"""``pixel_shuffle`` (§5.10), channel ``c·r² + i·r + j`` to offset ``(i, j)``: ONNX's
``DepthToSpace`` ``CRD`` order. A target whose depth-to-space reads ``(i·r + j)·C′ + c`` (``DCR``)
gets ``DepthToSpace`` ``DCR``, the permutation folded into the producer's channels (§9.4). A
certified int8 tensor moves as int8 (:func:`._common.depth_to_space`). Where the
producer's sum came NHWC (the x-first ``MatMulInteger`` path), its channels are folded into
that order too, and the shuffle reads the NHWC twin (:func:`_from_nhwc`)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I8, Emitter
from ._common import LowerCtx, depth_to_space, fits_i8


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    r = op.params.r
    c = ctx.graph.tensor(op.inputs[0]).channels // (r * r)
    in8 = fits_i8(ctx.range_of(op.inputs[0]))
    folded = op.inputs[0] in ctx.perms  # its channels in (i·r + j)·C′ + c order
    if folded and ins[0] in e.nhwc:
        return [_from_nhwc(e, e.nhwc[ins[0]], c, r, in8)]
    return [depth_to_space(e, ins[0], c, r, r, in8, "DCR" if folded else "CRD")]


def _from_nhwc(e, x: str, c: int, r: int, in8: bool) -> str:
    """The shuffle of an NHWC twin ``[1, H, W, r·r·c]`` whose channels are in ``(i·r + j)·c
    + c′`` order: one move of whole ``r·c`` runs to ``[1, H, r, W, r, c]`` (3.9 ms on a
    ``[1, 128, 128, 256]`` int32, where moving it to NCHW and shuffling there in ``CRD``
    order took 13.3 ms, measured), the result's NHWC twin, and its move to NCHW; an int8
    tensor makes both moves as int8 and widens after them (the move to NCHW of a
    ``[1, 256, 256, 64]`` int8 and its widening 2.8 ms, widening first 4.9 ms, measured)."""
    h, w = e.dim(x, 1), e.dim(x, 2)
    y = e.cast(x, I8) if in8 else x
    y = e.node("Transpose", [e.reshape(y, [1, h, w, r, r, c])], perm=[0, 1, 3, 2, 4, 5])
    hr, wr = e.times(h, r), e.times(w, r)
    y = e.reshape(y, [1, hr, wr, c])
    out = e.node("Transpose", [y], perm=[0, 3, 1, 2])
    if in8:  # a Reshape between the move and the widening, or onnxruntime's transpose
        # optimizer pushes the move below the Cast and widens first
        out = e.reshape(out, [1, c, hr, wr])
        y, out = e.widen(y, I8, e.storage), e.widen(out, I8, e.storage)
    e.nhwc[out] = y
    return out
