"""``elu`` (§5.8)."""

from ..integer import exp_neg_q16
from ._elementwise import each


def run(p, ins, ctx):
    def elu(c, v):
        if v > 0:
            return v
        prod = p.alpha * (exp_neg_q16(v, ctx.note) - 2**16)
        ctx.note("elu.p", prod)
        return prod // 2**16

    return [each(ins[0], elu)]
