"""``clamp`` (§5.5)."""

import numpy as np

from ..arrays import fit


def run(p, ins, ctx):
    """``clamp(v, lo, hi)``."""
    return [fit(np.minimum(np.maximum(ins[0], p.lo), p.hi))]
