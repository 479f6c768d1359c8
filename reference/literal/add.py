"""``add`` (§5.5)."""

from ._tensor import new, positions


def run(p, ins, ctx):
    a, b = ins
    out = new(*a.shape)
    for c, y, x in positions(*a.shape):
        out[c, y, x] = a[c, y, x] + b[c, y, x]
    return [out]
