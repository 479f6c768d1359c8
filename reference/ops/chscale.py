"""``chscale`` (§5.4): a per-channel multiplier row chosen by a scalar, then a rounding shift."""

from waiexport.params import Chscale

from ..arrays import mul
from . import Inputs, OpCtx, Outputs


def run(p: Chscale, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][y][x] = R_round(in[c][y][x] · M[r][c], s)`` with ``r`` the scalar's value."""
    row = p.table[ctx.scalars[p.scalar]].reshape(-1, 1, 1)
    return [ctx.rounding(mul(ins[0], row), p.shift, p.round)]
