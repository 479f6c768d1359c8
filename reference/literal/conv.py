"""``conv`` (§5.2), as the sum is written."""

from ._tensor import new, positions, rq_o


def run(p, ins, ctx):
    (x,) = ins
    cin, h, w = x.shape
    cg, og = cin // p.groups, p.cout // p.groups
    ho, wo = (h + 2 * p.ph - p.kh) // p.sh + 1, (w + 2 * p.pw - p.kw) // p.sw + 1
    out = new(p.cout, ho, wo)
    for o, y, xx in positions(p.cout, ho, wo):
        acc = 0
        for ci, i, j in positions(cg, p.kh, p.kw):
            u, v = y * p.sh + i - p.ph, xx * p.sw + j - p.pw
            if 0 <= u < h and 0 <= v < w:
                term = int(p.weights[o, ci, i, j]) * x[(o // og) * cg + ci, u, v]
                acc += term
                ctx.note("conv.term", term)
                ctx.note("conv.acc", acc)
        out[o, y, xx] = rq_o(acc, p.rq, o, ctx.note)
    return [out]
