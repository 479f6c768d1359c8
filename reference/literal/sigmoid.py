"""``sigmoid`` (§5.8)."""

from ..integer import exp_neg_q16
from ._elementwise import each


def run(p, ins, ctx):
    def sigmoid(c, v):
        e = exp_neg_q16(-abs(v), ctx.note)
        num = 2**32 if v >= 0 else e * 2**16
        ctx.note("sig.num", num)
        return num // (2**16 + e)

    return [each(ins[0], sigmoid)]
