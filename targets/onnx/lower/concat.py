"""``concat`` (§5.10): ``Concat`` along channels."""


def lower(e, op, ins, ctx):
    return [e.node("Concat", ins, axis=1)]
