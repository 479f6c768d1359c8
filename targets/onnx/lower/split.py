"""``split`` (§5.10): a ``Slice`` of channels."""


def lower(e, op, ins, ctx):
    p = op.params
    return [e.slice(ins[0], [p.start], [p.start + p.count], [1])]
