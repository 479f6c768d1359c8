"""``fill`` (§5.10): a constant or scalar value over the input's ``H × W``."""

import numpy as np

from waiexport.params import Fill

from ..arrays import compact
from . import Inputs, OpCtx, Outputs


def run(p: Fill, ins: Inputs, ctx: OpCtx) -> Outputs:
    """Every element is the value; channels from the output's record."""
    value = p.value if p.kind == 0 else ctx.scalars[p.value]
    _, h, w = ins[0].shape
    return [compact(np.full((ctx.out_channels[0], h, w), value, dtype=object))]
