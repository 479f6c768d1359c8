"""``l2norm`` (§5.7)."""

from ..integer import rsqrt_q16
from ._tensor import new, positions


def run(p, ins, ctx):
    v, = ins
    c, h, w = v.shape
    out = new(c, h, w)
    for ch in range(c):
        t = sum(v[ch, y, x] ** 2 for y, x in positions(h, w))
        k = rsqrt_q16(t + p.eps)
        for y, x in positions(h, w):
            out[ch, y, x] = (v[ch, y, x] * k) // 2**16
    return [out]
