"""``rescale`` (§5.4): the requantisation recipe on each element."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I32, Emitter
from ..requant import requantise, rq_args, width
from ._common import LowerCtx, narrow, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[0]).channels
    args = rq_args(op.params.rq, c, ctx.nodes.get(op.index))
    if e.storage == I32 and width(ctx.nodes.get(op.index), args, e) == I32:
        return [requantise(e, ins[0], **args, dtype=I32)]
    return [narrow(e, requantise(e, wide(e, ins[0]), **args))]
