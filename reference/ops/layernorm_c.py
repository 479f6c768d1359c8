"""``layernorm_c`` (§5.7): normalisation across channels at each position."""

import numpy as np

from waiexport.params import LayerNorm

from ..arrays import add, compact, floordiv, mul, rsqrt_q16, shift_floor, sub, total, trunc_div
from . import Inputs, OpCtx, Outputs


def run(p: LayerNorm, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``m = trunc((S + ⌊C/2⌋·sgn(S)) / C)``, ``d_c = x_c − m``, ``V = ⌊Σ d_c² / C⌋``,
    ``k = rsqrt_q16(V + ε)``, ``n_c = ⌊d_c·k / 2^16⌋``, ``out = ⌊n_c·γ[c] / 2^16⌋ + β[c]``."""
    (x,) = ins
    c = x.shape[0]
    s = total(x, axis=0, keepdims=True)
    sign = (s > 0).astype(np.int64) - (s < 0).astype(np.int64)
    m = trunc_div(add(s, mul(sign, np.int64(c // 2))), c)
    d = sub(x, m)
    v = floordiv(total(mul(d, d), axis=0, keepdims=True), c)
    k = rsqrt_q16(add(v, compact(np.array(p.eps, dtype=object))))
    n = shift_floor(mul(d, k), 16)
    return [add(shift_floor(mul(n, p.gamma.reshape(-1, 1, 1)), 16), p.beta.reshape(-1, 1, 1))]
