"""``sigmoid`` (§5.8), acc64: ``e = exp_neg_q16(−|v|)``, then ``⌊2^32 / (2^16 + e)⌋`` for
``v ≥ 0`` and ``⌊e·2^16 / (2^16 + e)⌋`` below."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ._common import LowerCtx, narrow, wide
from ._q16 import exp_neg_q16


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    v = wide(e, ins[0])
    ex = exp_neg_q16(e, e.node("Neg", [e.node("Abs", [v])]))
    den = e.node("Add", [ex, e.const(1 << 16, I64)])
    up = e.node("Div", [e.const(1 << 32, I64), den])
    down = e.node("Div", [e.node("Mul", [ex, e.const(1 << 16, I64)]), den])
    keep = e.node("GreaterOrEqual", [v, e.const(0, I64)])
    return [narrow(e, e.node("Where", [keep, up, down]))]
