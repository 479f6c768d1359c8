"""``apply`` (§5.9)."""

from ._tensor import new, positions, rounded


def run(p, ins, ctx):
    a, v = ins
    c, h, w = v.shape
    d = c // p.groups
    out = new(c, h, w)
    for g, i, y, x in positions(p.groups, d, h, w):
        acc = 0
        for j in range(d):
            term = a[g * d + i, 0, j] * v[g * d + j, y, x]
            acc += term
            ctx.note("apply.term", term)
            ctx.note("apply.acc", acc)
        out[g * d + i, y, x] = q = rounded(acc, 1, int(p.rq.shift[0]), p.rq.round, ctx.note)
        ctx.note("rq.y", q)
    return [out]
