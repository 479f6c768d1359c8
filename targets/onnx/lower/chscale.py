"""``chscale`` (§5.4): the multiplier row gathered at run time by the scalar, then a rounding
shift."""

from ..emit import I64
from ..requant import requantise, span
from ._common import narrow, wide


def lower(e, op, ins, ctx):
    p = op.params
    c = p.table.shape[1]
    row = e.node("Gather", [e.const(p.table, I64, "rows"), ctx.scalars[p.scalar]], axis=0)
    row = e.reshape(row, [1, c, 1, 1])
    return [narrow(e, requantise(e, wide(e, ins[0]), round=p.round, shifts=[p.shift] * c,
                                 mult=row, span=span(ctx.nodes.get(op.index))))]
