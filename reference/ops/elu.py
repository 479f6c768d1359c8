"""``elu(α)`` (§5.8): ``v`` above 0, ``α·(e^v − 1)`` in Q16 at or below."""

import numpy as np

from waiexport.params import Elu

from ..arrays import compact, exp_neg_q16, mul, shift_floor
from . import Inputs, OpCtx, Outputs


def run(p: Elu, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``v`` if ``v > 0``, else ``⌊α·(exp_neg_q16(v) − 2^16) / 2^16⌋``."""
    (v,) = ins
    e = exp_neg_q16(np.minimum(v, 0)) - 65536
    return [compact(np.where(v > 0, v, shift_floor(mul(e, np.int64(p.alpha)), 16)))]
