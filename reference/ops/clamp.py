"""``clamp`` (§5.5)."""

import numpy as np

from ..arrays import compact


def run(p, ins, ctx):
    """``clamp(v, lo, hi)``."""
    return [compact(np.minimum(np.maximum(ins[0], p.lo), p.hi))]
