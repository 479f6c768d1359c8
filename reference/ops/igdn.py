"""``igdn`` (§5.7): inverse generalised divisive normalisation, each term floored."""

import numpy as np

from waiexport.params import Igdn

from ..arrays import add, compact, isqrt, mul, shift_floor, total
from . import Inputs, OpCtx, Outputs


def run(p: Igdn, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``N_i = β_i + Σ_j ⌊γ[i][j]·x_j² / 2^gf⌋``, ``r_i = isqrt(max(0, N_i))``,
    ``out_i = ⌊x_i·r_i / 2^frac⌋``; each term is floored before the sum."""
    (x,) = ins
    terms = shift_floor(mul(p.gamma[:, :, None, None], mul(x, x)[None]), p.gf)
    n = add(total(terms, axis=1), p.beta.reshape(-1, 1, 1))
    r = isqrt(compact(np.maximum(n, 0)))
    return [shift_floor(mul(x, r), p.frac)]
