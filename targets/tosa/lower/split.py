"""``split`` (§5.10): a SLICE of channels."""

from ._common import slice_of


def lower(b, op, ins, ctx):
    _, h, w, _ = ctx.nhwc(op.inputs[0])
    return [slice_of(b, ins[0], [0, 0, 0, op.params.start], [1, h, w, op.params.count])]
