"""``apply`` (§5.9)."""

from ..integer import r_round
from ._tensor import new, positions


def run(p, ins, ctx):
    a, v = ins
    c, h, w = v.shape
    d = c // p.groups
    out = new(c, h, w)
    for g, i, y, x in positions(p.groups, d, h, w):
        acc = sum(a[g * d + i, 0, j] * v[g * d + j, y, x] for j in range(d))
        out[g * d + i, y, x] = r_round(acc, int(p.rq.shift[0]), p.rq.round)
    return [out]
