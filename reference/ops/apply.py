"""``apply`` (§5.9): per group, a ``d × d`` matrix from ``gram`` applied to ``V``'s channels."""

import numpy as np

from waiexport.params import Contraction

from ..arrays import I64_MAX, amax, compact, wide
from . import Inputs, OpCtx, Outputs


def run(p: Contraction, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[g·d + i][y][x] = R_round(Σ_{j<d} A[g·d + i][0][j] · V[g·d + j][y][x], s)``."""
    a, v = ins
    c, h, w = v.shape
    d = c // p.groups
    a2, v2 = a.reshape(p.groups, d, d), v.reshape(p.groups, d, h * w)
    if not (a.dtype == v.dtype == np.int64 and d * amax(a) * amax(v) <= I64_MAX):
        a2, v2 = wide(a2), wide(v2)
    acc = compact(np.matmul(a2, v2))
    return [ctx.rounding(acc.reshape(c, h, w), p.rq.shift[0], p.rq.round)]
