"""``l2norm`` (§5.7)."""

from ..integer import isqrt
from ._tensor import new, positions


def run(p, ins, ctx):
    (v,) = ins
    c, h, w = v.shape
    out = new(c, h, w)
    for ch in range(c):
        t = 0
        for y, x in positions(h, w):
            t += v[ch, y, x] ** 2
            ctx.note("l2.T", t)
        u = t + p.eps
        ctx.note("l2.T", u)
        r = isqrt(u)
        k = 0 if r == 0 else 2**32 // r
        ctx.note("rsq.num", 2**32)
        ctx.note("l2.k", k)
        for y, x in positions(h, w):
            vk = v[ch, y, x] * k
            ctx.note("l2.vk", vk)
            out[ch, y, x] = vk // 2**16
    return [out]
