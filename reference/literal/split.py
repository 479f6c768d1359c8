"""``split`` (§5.10)."""

from ._tensor import new, positions


def run(p, ins, ctx):
    (x,) = ins
    _, h, w = x.shape
    out = new(p.count, h, w)
    for c, y, xx in positions(p.count, h, w):
        out[c, y, xx] = x[p.start + c, y, xx]
    return [out]
