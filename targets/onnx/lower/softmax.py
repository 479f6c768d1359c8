"""``softmax`` (§5.7), acc64: along ``W``, ``e_x = exp_neg_q16(v_x − max v)``, the row sum
by an int64 ``MatMul`` with ones (``ReduceSum`` goes through double), then
``⌊(e_x·2^16 + ⌊Σ/2⌋) / Σ⌋`` by ``Div`` of non-negative values. ``ReduceMax`` is exact on
int64 (measured at 2^62 + 1 against 2^62 + 3)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ._common import LowerCtx, narrow, wide
from ._q16 import exp_neg_q16, ones_like_axis


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    v = wide(e, ins[0])
    top = e.node("ReduceMax", [v, e.const([3], I64)], keepdims=1)
    ex = exp_neg_q16(e, e.node("Sub", [v, top]))
    total = e.node("MatMul", [ex, ones_like_axis(e, ex, 3)])
    num = e.node(
        "Add", [e.node("Mul", [ex, e.const(1 << 16, I64)]), e.node("Div", [total, e.const(2, I64)])]
    )
    return [narrow(e, e.node("Div", [num, total]))]
