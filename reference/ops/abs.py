"""``abs`` (§5.5)."""

import numpy as np

from ..arrays import I64_MAX, amax, fit, wide


def run(p, ins, ctx):
    """``|v|``; ``|−2^63|`` is kept exact."""
    v, = ins
    return [np.abs(v) if v.dtype == np.int64 and amax(v) <= I64_MAX else fit(np.abs(wide(v)))]
