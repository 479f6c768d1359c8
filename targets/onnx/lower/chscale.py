"""``chscale`` (§5.4): the multiplier row gathered at run time by the scalar, then a rounding
shift; int64, or int32 limbs where the runtime has no exact int64 (the table's entries fit
i32 under acc32, §7.2)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ..requant import product_type, requantise, span
from ._common import LowerCtx, stored, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p = op.params
    c = p.table.shape[1]
    dtype = product_type(e)
    row = e.node("Gather", [e.const(p.table, dtype, "rows"), ctx.scalars[p.scalar]], axis=0)
    row = e.reshape(row, [1, c, 1, 1])
    y = requantise(
        e,
        wide(e, ins[0], dtype),
        round=p.round,
        shifts=[p.shift] * c,
        mult=row,
        dtype=dtype,
        span=span(ctx.nodes.get(op.index)),
        operand=ctx.range_of(op.inputs[0]),
        factor=(int(p.table.min()), int(p.table.max())),
    )
    return [stored(e, y, dtype)]
