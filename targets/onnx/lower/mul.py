"""``mul`` (§5.4): the product (``b`` broadcasts over channels), then the recipe; int64, or
int32 where :func:`..requant.width` says (the product ``mul.p`` is class ``acc``)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ..requant import requantise, rq_args, width
from ._common import LowerCtx, stored, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[0]).channels
    args = rq_args(op.params.rq, c, ctx.nodes.get(op.index))
    dtype = width(ctx.nodes.get(op.index), args, e)
    prod = e.node("Mul", [wide(e, ins[0], dtype), wide(e, ins[1], dtype)])
    return [stored(e, requantise(e, prod, **args, dtype=dtype), dtype)]
