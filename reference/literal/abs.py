"""``abs`` (§5.5)."""

from ._elementwise import each


def run(p, ins, ctx):
    return [each(ins[0], lambda c, v: abs(v))]
