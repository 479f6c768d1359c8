"""``gram`` (§5.9): per group, the inner products of every channel pair over all positions."""

import numpy as np

from waiexport.params import Contraction

from ..arrays import I64_MAX, amax, compact, wide
from . import Inputs, OpCtx, Outputs


def run(p: Contraction, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[g·d + i][0][j] = R_round(Σ_{y,x} A[g·d + i][y][x] · B[g·d + j][y][x], s)``."""
    a, b = ins
    c = a.shape[0]
    d = c // p.groups
    a2, b2 = a.reshape(p.groups, d, -1), b.reshape(p.groups, d, -1)
    if not (a.dtype == b.dtype == np.int64 and a2.shape[2] * amax(a) * amax(b) <= I64_MAX):
        a2, b2 = wide(a2), wide(b2)
    acc = compact(np.matmul(a2, b2.transpose(0, 2, 1)))
    return [ctx.rounding(acc.reshape(c, 1, d), p.rq.shift[0], p.rq.round)]
