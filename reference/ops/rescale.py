"""``rescale`` (§5.4): ``rq`` applied elementwise."""

from ..rq import rq


def run(p, ins, ctx):
    """``out[c][y][x] = rq_c(in[c][y][x])``."""
    return [rq(ins[0], p.rq, ctx.rounding)]
