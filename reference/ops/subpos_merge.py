"""``subpos_merge`` (§5.10): the inverse of ``subpos_split`` with the same order."""

import numpy as np

from waiexport.params import Subpos

from ..arrays import compact
from . import Inputs, OpCtx, Outputs


def run(p: Subpos, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][2y + a_k][2x + b_k] = in_k[c][y][x]``."""
    c, h, w = ins[0].shape
    dtype = np.int64 if all(a.dtype == np.int64 for a in ins) else object
    out = np.empty((c, 2 * h, 2 * w), dtype=dtype)
    for k, part in zip(p.order, ins):
        out[:, k >> 1 :: 2, k & 1 :: 2] = part
    return [compact(out)]
