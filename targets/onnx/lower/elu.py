"""``elu(α)`` (§5.8), acc64: ``v`` above 0, else ``⌊α·(exp_neg_q16(v) − 2^16) / 2^16⌋``;
``elu.p`` is formed wide (:mod:`..wide`) where its certified interval passes 64 bits."""

from waiexport.graph import Op

from ...lowering import Names
from .. import wide as W
from ..emit import I64, Emitter
from ..requant import floor_shift, span
from ._common import LowerCtx, narrow, wide
from ._q16 import exp_neg_q16


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    v = wide(e, ins[0])
    zero = e.const(0, I64)
    low = e.node("Where", [e.node("Greater", [v, zero]), zero, v])
    d = e.node("Sub", [exp_neg_q16(e, low), e.const(1 << 16, I64)])
    lo, hi = span(ctx.nodes.get(op.index), "elu.p") or (-(1 << 127), 1 << 127)
    if -(1 << 63) <= lo and hi < 1 << 63:
        neg = floor_shift(e, e.node("Mul", [d, e.const(op.params.alpha, I64)]), [16], span=(lo, hi))
    else:
        neg = W.narrow(e, W.floor_shift(e, W.product(e, d, [op.params.alpha]), 16))
    return [narrow(e, e.node("Where", [e.node("Greater", [v, zero]), v, neg]))]
