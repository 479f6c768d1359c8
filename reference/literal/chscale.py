"""``chscale`` (§5.4)."""

from ._elementwise import each
from ._tensor import rounded


def run(p, ins, ctx):
    r = ctx.scalars[p.scalar]

    def scale(c, v):
        y = rounded(v, int(p.table[r, c]), p.shift, p.round, ctx.note)
        ctx.note("rq.y", y)
        return y

    return [each(ins[0], scale)]
