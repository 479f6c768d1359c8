"""``subpos_merge`` (§5.10)."""

from ._tensor import new, positions


def run(p, ins, ctx):
    c, h, w = ins[0].shape
    out = new(c, 2 * h, 2 * w)
    for k in range(4):
        a, b = divmod(p.order[k], 2)
        for ch, y, x in positions(c, h, w):
            out[ch, 2 * y + a, 2 * x + b] = ins[k][ch, y, x]
    return [out]
