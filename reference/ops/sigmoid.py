"""``sigmoid`` (§5.8): the Q16 logistic function through ``exp_neg_q16(−|v|)``."""

import numpy as np

from waiexport.params import NoParams

from ..arrays import exp_neg_q16, wide
from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``⌊2^32 / (2^16 + e)⌋`` for ``v ≥ 0`` and ``⌊e·2^16 / (2^16 + e)⌋`` for ``v < 0``,
    with ``e = exp_neg_q16(−|v|)``."""
    (v,) = ins
    e = exp_neg_q16(-abs(wide(v)))
    return [np.where(v >= 0, (1 << 32) // (65536 + e), (e << 16) // (65536 + e))]
