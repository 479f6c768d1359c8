"""``add`` (§5.5): int32 ``Add``; the sum fits, the graph meets ``acc32``."""


def lower(e, op, ins, ctx):
    return [e.node("Add", ins)]
