"""``leaky`` (§5.5)."""

from ._elementwise import each


def run(p, ins, ctx):
    def leaky(c, v):
        if v >= 0:
            return v
        prod = v * p.a
        ctx.note("leaky.p", prod)
        return prod // 2**p.f

    return [each(ins[0], leaky)]
