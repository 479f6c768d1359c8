"""``pixel_shuffle`` (§5.10)."""

from ._tensor import new, positions


def run(p, ins, ctx):
    (x,) = ins
    c, h, w = x.shape
    r = p.r
    out = new(c // (r * r), h * r, w * r)
    for ch, hh, ww, i, j in positions(c // (r * r), h, w, r, r):
        out[ch, hh * r + i, ww * r + j] = x[ch * r * r + i * r + j, hh, ww]
    return [out]
