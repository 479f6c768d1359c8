"""``elu`` (§5.8)."""

from ..integer import exp_neg_q16
from ._elementwise import each


def run(p, ins, ctx):
    return [each(ins[0], lambda c, v: v if v > 0
                 else (p.alpha * (exp_neg_q16(v) - 2**16)) // 2**16)]
