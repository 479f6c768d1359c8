"""``abs`` (§5.5)."""


def lower(e, op, ins, ctx):
    return [e.node("Abs", ins)]
