"""``softmax`` (§5.7)."""

from ..integer import exp_neg_q16
from ._tensor import new, positions


def run(p, ins, ctx):
    v, = ins
    c, h, w = v.shape
    out = new(c, h, w)
    for ch, y in positions(c, h):
        m = max(v[ch, y, x] for x in range(w))
        e = [exp_neg_q16(v[ch, y, x] - m) for x in range(w)]
        total = sum(e)
        for x in range(w):
            out[ch, y, x] = (e[x] * 2**16 + total // 2) // total
    return [out]
