"""``rescale`` (§5.4): ``rq`` applied elementwise."""

from waiexport.params import Rescale

from ..rq import rq
from . import Inputs, OpCtx, Outputs


def run(p: Rescale, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][y][x] = rq_c(in[c][y][x])``."""
    return [rq(ins[0], p.rq, ctx.rounding)]
