"""``leaky`` (§5.5): negative values scaled by ``a / 2^f``, floored (away from zero)."""

import numpy as np

from waiexport.params import Leaky

from ..arrays import compact, mul, shift_floor
from . import Inputs, OpCtx, Outputs


def run(p: Leaky, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``v`` if ``v ≥ 0``, else ``⌊v·a / 2^f⌋``."""
    (v,) = ins
    return [compact(np.where(v >= 0, v, shift_floor(mul(v, np.int64(p.a)), p.f)))]
