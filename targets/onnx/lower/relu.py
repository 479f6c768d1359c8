"""``relu`` (§5.5): ``Max(x, 0)``."""

from ..emit import I32


def lower(e, op, ins, ctx):
    return [e.node("Max", [ins[0], e.const(0, I32)])]
