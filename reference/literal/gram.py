"""``gram`` (§5.9)."""

from ..integer import r_round
from ._tensor import new, positions


def run(p, ins, ctx):
    a, b = ins
    c, h, w = a.shape
    d = c // p.groups
    out = new(c, 1, d)
    for g, i, j in positions(p.groups, d, d):
        acc = sum(a[g * d + i, y, x] * b[g * d + j, y, x] for y, x in positions(h, w))
        out[g * d + i, 0, j] = r_round(acc, int(p.rq.shift[0]), p.rq.round)
    return [out]
