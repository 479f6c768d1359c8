"""``elu(α)`` (§5.8): ``v`` above 0, ``α·(e^v − 1)`` in Q16 at or below."""

import numpy as np

from ..arrays import exp_neg_q16, compact, mul, shift_floor


def run(p, ins, ctx):
    """``v`` if ``v > 0``, else ``⌊α·(exp_neg_q16(v) − 2^16) / 2^16⌋``."""
    v, = ins
    e = exp_neg_q16(np.minimum(v, 0)) - 65536
    return [compact(np.where(v > 0, v, shift_floor(mul(e, np.int64(p.alpha)), 16)))]
