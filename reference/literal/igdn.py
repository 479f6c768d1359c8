"""``igdn`` (§5.7)."""

from ..integer import isqrt
from ._tensor import new, positions


def run(p, ins, ctx):
    (x,) = ins
    c, h, w = x.shape
    out = new(c, h, w)
    for y, xx in positions(h, w):
        for i in range(c):
            n = int(p.beta[i])
            without = 0
            for j in range(c):
                x2 = x[j, y, xx] ** 2
                gx2 = int(p.gamma[i, j]) * x2
                term = gx2 // 2**p.gf
                n += term
                without += term
                for key, value in (
                    ("igdn.x2", x2),
                    ("igdn.gx2", gx2),
                    ("igdn.term", term),
                    ("igdn.N", n),
                    ("igdn.N", without),
                ):
                    ctx.note(key, value)
            r = isqrt(max(0, n))
            xr = x[i, y, xx] * r
            ctx.note("igdn.r", r)
            ctx.note("igdn.xr", xr)
            out[i, y, xx] = xr // 2**p.frac
    return [out]
