"""``rescale`` (§5.4): the requantisation recipe on each element."""

from ..requant import requantise, rq_args
from ._common import narrow, wide


def lower(e, op, ins, ctx):
    c = ctx.graph.tensor(op.inputs[0]).channels
    return [narrow(e, requantise(e, wide(e, ins[0]), **rq_args(op.params.rq, c)))]
