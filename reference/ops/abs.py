"""``abs`` (§5.5)."""

import numpy as np

from ..arrays import I64_MAX, amax, compact, wide


def run(p, ins, ctx):
    """``|v|``; ``|−2^63|`` is kept exact."""
    v, = ins
    return [np.abs(v) if v.dtype == np.int64 and amax(v) <= I64_MAX else compact(np.abs(wide(v)))]
