"""``leaky`` (§5.5): ``⌊v·a / 2^f⌋`` on negative values by the exact floor shift."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ..requant import floor_shift
from ._common import LowerCtx, narrow, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    v, a = wide(e, ins[0]), op.params.a
    corners = [b * a for b in ctx.range_of(op.inputs[0])]
    neg = floor_shift(
        e, e.node("Mul", [v, e.const(a, I64)]), [op.params.f], span=(min(corners), max(corners))
    )
    keep = e.node("GreaterOrEqual", [v, e.const(0, I64)])
    return [narrow(e, e.node("Where", [keep, v, neg]))]
