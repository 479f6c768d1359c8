"""``chscale`` (§5.4): the multiplier row gathered at run time by the scalar, then a rounding
shift."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ..requant import requantise, span
from ._common import LowerCtx, narrow, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p = op.params
    c = p.table.shape[1]
    row = e.node("Gather", [e.const(p.table, I64, "rows"), ctx.scalars[p.scalar]], axis=0)
    row = e.reshape(row, [1, c, 1, 1])
    return [
        narrow(
            e,
            requantise(
                e,
                wide(e, ins[0]),
                round=p.round,
                shifts=[p.shift] * c,
                mult=row,
                span=span(ctx.nodes.get(op.index)),
            ),
        )
    ]
