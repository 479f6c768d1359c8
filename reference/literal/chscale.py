"""``chscale`` (§5.4)."""

from ..integer import r_round
from ._elementwise import each


def run(p, ins, ctx):
    r = ctx.scalars[p.scalar]
    return [each(ins[0], lambda c, v: r_round(v * int(p.table[r, c]), p.shift, p.round))]
