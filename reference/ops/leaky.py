"""``leaky`` (§5.5): negative values scaled by ``a / 2^f``, floored (away from zero)."""

import numpy as np

from ..arrays import compact, mul, shift_floor


def run(p, ins, ctx):
    """``v`` if ``v ≥ 0``, else ``⌊v·a / 2^f⌋``."""
    v, = ins
    return [compact(np.where(v >= 0, v, shift_floor(mul(v, np.int64(p.a)), p.f)))]
