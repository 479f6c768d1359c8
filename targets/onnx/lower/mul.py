"""``mul`` (§5.4): an int64 product (``b`` broadcasts over channels), then the recipe."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ..requant import requantise, rq_args
from ._common import LowerCtx, narrow, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[0]).channels
    prod = e.node("Mul", [wide(e, ins[0]), wide(e, ins[1])])
    return [narrow(e, requantise(e, prod, **rq_args(op.params.rq, c, ctx.nodes.get(op.index))))]
