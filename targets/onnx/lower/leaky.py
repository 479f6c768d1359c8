"""``leaky`` (§5.5): ``⌊v·a / 2^f⌋`` on negative values by the exact floor shift. On int32
graph tensors, ``max(v, 0) + ⌊min(v, 0)·a / 2^f⌋`` (one term is 0), its product formed where
the runtime computes it exactly (:func:`..requant.product_type`); on int64 ones, the floor
for every value and a ``Where`` on the sign."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I32, I64, Emitter
from ..requant import floor_shift, product_type, requantise
from ._common import LowerCtx, narrow, stored, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    a, f = op.params.a, op.params.f
    lo, hi = ctx.range_of(op.inputs[0])
    if e.storage == I32:
        dtype = product_type(e)
        neg = e.node("Min", [ins[0], e.const(0, I32)])
        neg = requantise(
            e,
            wide(e, neg, dtype),
            round="floor",
            shifts=[f],
            mult=[a],
            dtype=dtype,
            span=tuple(sorted((min(lo, 0) * a, 0))),
            operand=(min(lo, 0), 0),
        )
        return [e.node("Add", [e.node("Max", [ins[0], e.const(0, I32)]), stored(e, neg, dtype)])]
    v, corners = wide(e, ins[0]), [b * a for b in (lo, hi)]
    neg = floor_shift(
        e, e.node("Mul", [v, e.const(a, I64)]), [f], span=(min(corners), max(corners))
    )
    keep = e.node("GreaterOrEqual", [v, e.const(0, I64)])
    return [narrow(e, e.node("Where", [keep, v, neg]))]
