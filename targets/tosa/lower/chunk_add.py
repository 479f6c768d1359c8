"""``chunk_add`` (§5.5): the two channel halves sliced, then an int32 ADD."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ._common import TosaCtx, slice_of


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    _, h, w, c = ctx.nhwc(op.inputs[0])
    half = [slice_of(b, ins[0], [0, 0, 0, k * c // 2], [1, h, w, c // 2]) for k in (0, 1)]
    lo, hi = (b.cast(x, I32) for x in half)
    return [b.op("ADD", [lo, hi], b.shape(lo), I32)]
