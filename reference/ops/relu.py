"""``relu`` (§5.5)."""

import numpy as np

from waiexport.params import NoParams

from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``max(v, 0)``."""
    return [np.maximum(ins[0], 0)]
