"""``conv`` (§5.2): ``ConvInteger`` sums on u8 digits, then the requantisation recipe."""

from ..mac import conv_sum
from ..requant import requantise, rq_args
from ._common import narrow


def lower(e, op, ins, ctx):
    p = op.params
    acc = conv_sum(e, ins[0], ctx.range_of(op.inputs[0]), p.weights, groups=p.groups,
                   strides=(p.sh, p.sw), pads=(p.ph, p.pw, p.ph, p.pw))
    return [narrow(e, requantise(e, acc, **rq_args(p.rq, p.cout)))]
