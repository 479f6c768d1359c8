"""``mul`` (§5.4): the product of two tensors, ``b`` broadcast over channels when it has one,
then ``rq``."""

from waiexport.params import Mul

from ..arrays import mul
from ..rq import rq
from . import Inputs, OpCtx, Outputs


def run(p: Mul, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][y][x] = rq_c(a[c][y][x] · b[c′][y][x])``, ``c′ = c`` or 0."""
    a, b = ins
    return [rq(mul(a, b), p.rq, ctx.rounding)]
