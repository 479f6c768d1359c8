"""``subpos_split`` (§5.10)."""

from ._tensor import new, positions


def run(p, ins, ctx):
    (x,) = ins
    c, h, w = x.shape
    outs = []
    for k in range(4):
        a, b = divmod(p.order[k], 2)
        out = new(c, h // 2, w // 2)
        for ch, y, xx in positions(c, h // 2, w // 2):
            out[ch, y, xx] = x[ch, 2 * y + a, 2 * xx + b]
        outs.append(out)
    return outs
