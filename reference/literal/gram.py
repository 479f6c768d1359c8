"""``gram`` (§5.9)."""

from ._tensor import new, positions, rounded


def run(p, ins, ctx):
    a, b = ins
    c, h, w = a.shape
    d = c // p.groups
    out = new(c, 1, d)
    for g, i, j in positions(p.groups, d, d):
        acc = 0
        for y, x in positions(h, w):
            term = a[g * d + i, y, x] * b[g * d + j, y, x]
            acc += term
            ctx.note("gram.term", term)
            ctx.note("gram.acc", acc)
        out[g * d + i, 0, j] = q = rounded(acc, 1, int(p.rq.shift[0]), p.rq.round, ctx.note)
        ctx.note("rq.y", q)
    return [out]
