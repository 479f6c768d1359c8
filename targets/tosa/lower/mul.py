"""``mul`` (§5.4): int32 MUL with shift 0 (``b`` broadcasts over channels; the product fits,
the graph meets acc32), then RESCALE (:mod:`..requant`). A MUL shift would be a
double-rounding scale on Vela, so the rounding is RESCALE's."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I8, I32, TosaBuilder
from ..requant import requantise
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    a, c = b.cast(ins[0], I32), b.cast(ins[1], I32)
    prod = b.op("MUL", [a, c, b.const([0], I8)], b.shape(a), I32)
    return [
        requantise(b, prod, op.params.rq, b.shape(a)[3], ctx.nodes[op.index].intermediates["rq.t"])
    ]
