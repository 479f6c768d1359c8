"""``subpos_split`` (§5.10): four ``Slice``s of step 2."""

BIG = 1 << 62


def lower(e, op, ins, ctx):
    return [e.slice(ins[0], [k >> 1, k & 1], [BIG, BIG], [2, 3], [2, 2]) for k in op.params.order]
