"""``subpos_split`` (§5.10): RESHAPE ``[1, H/2, 2, W/2, 2, C]``, then one SLICE per sub-position
``(a, b)`` of ``order``, each RESHAPE-d back to ``[1, H/2, W/2, C]``."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import TosaCtx, slice_of


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    _, h, w, c = ctx.nhwc(op.outputs[0])
    dtype = b.dtype(ins[0])
    six = b.op("RESHAPE", [ins[0], b.shape_of([1, h, 2, w, 2, c])], (1, h, 2, w, 2, c), dtype)
    outs = []
    for k in op.params.order:
        part = slice_of(b, six, [0, 0, k >> 1, 0, k & 1, 0], [1, h, 1, w, 1, c])
        outs.append(b.op("RESHAPE", [part, b.shape_of([1, h, w, c])], (1, h, w, c), dtype))
    return outs
