"""``chunk_add`` (§5.5): the first half of the channels plus the second."""

from waiexport.params import NoParams

from ..arrays import add
from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c] = in[c] + in[c + C/2]``."""
    (x,) = ins
    half = x.shape[0] // 2
    return [add(x[:half], x[half:])]
