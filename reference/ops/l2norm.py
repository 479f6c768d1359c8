"""``l2norm`` (§5.7): each channel divided by its L2 norm over all positions, in Q16."""

import numpy as np

from waiexport.params import L2Norm

from ..arrays import add, compact, mul, rsqrt_q16, shift_floor, total
from . import Inputs, OpCtx, Outputs


def run(p: L2Norm, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``T = Σ_{y,x} v²``, ``k = rsqrt_q16(T + ε)``, ``out = ⌊v·k / 2^16⌋`` per channel."""
    (v,) = ins
    sq = mul(v, v).reshape(v.shape[0], -1)
    k = rsqrt_q16(add(total(sq, axis=1), compact(np.array(p.eps, dtype=object))))
    return [shift_floor(mul(v, k.reshape(-1, 1, 1)), 16)]
