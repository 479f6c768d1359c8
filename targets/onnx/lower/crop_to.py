"""``crop_to`` (§5.10): ``Slice`` to ``ref``'s run-time ``H′ × W′``."""


def lower(e, op, ins, ctx):
    ends = e.slice(e.dims(ins[1]), [2], [4], [0])
    return [e.slice(ins[0], [0, 0], ends, [2, 3])]
