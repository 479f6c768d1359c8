"""``conv_transpose`` (§5.3), as the definition is written (not the scatter form)."""

from ._tensor import new, positions, rq_o


def run(p, ins, ctx):
    (x,) = ins
    cin, h, w = x.shape
    ho, wo = (h - 1) * p.sh + p.kh + p.oph - 2 * p.ph, (w - 1) * p.sw + p.kw + p.opw - 2 * p.pw
    out = new(p.cout, ho, wo)
    for o, y, xx in positions(p.cout, ho, wo):
        acc = 0
        for ci, i, j in positions(cin, p.kh, p.kw):
            ty, tx = y + p.ph - i, xx + p.pw - j
            if (
                ty >= 0
                and ty % p.sh == 0
                and ty // p.sh < h
                and tx >= 0
                and tx % p.sw == 0
                and tx // p.sw < w
            ):
                term = int(p.weights[ci, o, i, j]) * x[ci, ty // p.sh, tx // p.sw]
                acc += term
                ctx.note("convT.term", term)
                ctx.note("convT.acc", acc)
        out[o, y, xx] = rq_o(acc, p.rq, o, ctx.note)
    return [out]
