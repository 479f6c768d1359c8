"""``clamp`` (§5.5)."""

import numpy as np

from waiexport.params import Clamp

from ..arrays import compact
from . import Inputs, OpCtx, Outputs


def run(p: Clamp, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``clamp(v, lo, hi)``."""
    return [compact(np.minimum(np.maximum(ins[0], p.lo), p.hi))]
