"""``rescale`` (§5.4): the requantisation alone (:mod:`..requant`) on the int32 input."""

from ..build import I32
from ..requant import requantise


def lower(b, op, ins, ctx):
    c = ctx.nhwc(op.inputs[0])[3]
    return [requantise(b, b.cast(ins[0], I32), op.params.rq, c,
                       ctx.nodes[op.index].intermediates["rq.t"])]
