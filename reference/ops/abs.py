"""``abs`` (§5.5)."""

import numpy as np

from waiexport.params import NoParams

from ..arrays import I64_MAX, amax, compact, wide
from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``|v|``; ``|−2^63|`` is kept exact."""
    (v,) = ins
    return [np.abs(v) if v.dtype == np.int64 and amax(v) <= I64_MAX else compact(np.abs(wide(v)))]
