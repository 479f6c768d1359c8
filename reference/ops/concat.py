"""``concat`` (§5.10): channels of the inputs, in input order."""

import numpy as np

from waiexport.params import NoParams

from ..arrays import compact
from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """The inputs' channels, in input order."""
    return [
        compact(
            np.concatenate(
                ins if len({a.dtype for a in ins}) == 1 else [a.astype(object) for a in ins]
            )
        )
    ]
