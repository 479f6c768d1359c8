"""``mul`` (§5.4)."""

from ._tensor import new, positions, rq_o


def run(p, ins, ctx):
    a, b = ins
    c, h, w = a.shape
    out = new(c, h, w)
    for ch, y, x in positions(c, h, w):
        prod = a[ch, y, x] * b[ch if b.shape[0] == c else 0, y, x]
        ctx.note("mul.p", prod)
        out[ch, y, x] = rq_o(prod, p.rq, ch, ctx.note)
    return [out]
