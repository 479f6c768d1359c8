"""``softmax`` (§5.7): Q16 softmax along ``W`` for each ``(c, y)``."""

from waiexport.params import NoParams

from ..arrays import add, exp_neg_q16, floordiv, sub, total
from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``e_x = exp_neg_q16(v_x − max v)``, ``Σ = Σ_x e_x``,
    ``out_x = ⌊(e_x·2^16 + ⌊Σ/2⌋) / Σ⌋``; a row need not sum to ``2^16``."""
    (v,) = ins
    e = exp_neg_q16(sub(v, v.max(axis=2, keepdims=True)))
    s = total(e, axis=2, keepdims=True)
    return [floordiv(add(e << 16, s >> 1), s)]
