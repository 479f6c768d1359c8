"""``softmax`` (§5.7)."""

from ..integer import exp_neg_q16
from ._tensor import new, positions


def run(p, ins, ctx):
    (v,) = ins
    c, h, w = v.shape
    out = new(c, h, w)
    for ch, y in positions(c, h):
        m = max(v[ch, y, x] for x in range(w))
        e = []
        for x in range(w):
            ctx.note("sm.diff", v[ch, y, x] - m)
            e.append(exp_neg_q16(v[ch, y, x] - m, ctx.note))
        total = 0
        for ex in e:
            total += ex
            ctx.note("sm.sum", total)
        for x in range(w):
            num = e[x] * 2**16 + total // 2
            ctx.note("sm.num", num)
            out[ch, y, x] = num // total
    return [out]
