"""``mul`` (§5.4)."""

from ._tensor import new, positions, rq_o


def run(p, ins, ctx):
    a, b = ins
    c, h, w = a.shape
    out = new(c, h, w)
    for ch, y, x in positions(c, h, w):
        out[ch, y, x] = rq_o(a[ch, y, x] * b[ch if b.shape[0] == c else 0, y, x], p.rq, ch)
    return [out]
