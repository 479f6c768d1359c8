"""``sigmoid`` (§5.8)."""

from ..integer import exp_neg_q16
from ._elementwise import each


def _sigmoid(v: int) -> int:
    if v >= 0:
        e = exp_neg_q16(-v)
        return 2**32 // (2**16 + e)
    e = exp_neg_q16(v)
    return (e * 2**16) // (2**16 + e)


def run(p, ins, ctx):
    return [each(ins[0], lambda c, v: _sigmoid(v))]
