"""``crop`` (§5.10)."""

from ._tensor import new, positions


def run(p, ins, ctx):
    (x,) = ins
    y0, x0, h, w = (
        o.value if o.kind == 0 else ctx.scalars[o.value] for o in (p.y0, p.x0, p.h, p.w)
    )
    out = new(x.shape[0], h, w)
    for c, y, xx in positions(x.shape[0], h, w):
        out[c, y, xx] = x[c, y0 + y, x0 + xx]
    return [out]
