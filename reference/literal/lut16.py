"""``lut16`` (§5.6)."""

from ._elementwise import each


def run(p, ins, ctx):
    return [each(ins[0], lambda c, v: int(p.table[v + 32768]))]
