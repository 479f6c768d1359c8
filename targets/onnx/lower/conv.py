"""``conv`` (§5.2): ``ConvInteger`` sums on the target's MAC array (:func:`..mac.mac_sum`),
then the requantisation recipe. A channel permutation folded into this producer (a
depth-to-space in another order, §9.4) reorders its output channels: weights and
per-channel parameters alike."""

import numpy as np

from ..mac import mac_sum
from ..requant import requantise, rq_args, width
from ._common import stored


def lower(e, op, ins, ctx):
    p = op.params
    perm = ctx.perms.get(op.outputs[0], np.arange(p.cout))
    w = p.weights[perm]
    args = {k: [v[i] for i in perm] if isinstance(v, list) else v
            for k, v in rq_args(p.rq, p.cout, ctx.nodes.get(op.index)).items()}
    dtype = width(ctx.nodes.get(op.index), args)
    acc = mac_sum(e, ins[0], ctx.range_of(op.inputs[0]), w, ctx.target, groups=p.groups,
                  strides=(p.sh, p.sw), pads=(p.ph, p.pw, p.ph, p.pw), dtype=dtype, u8s8=ctx.u8s8)
    y = requantise(e, acc, **args, dtype=dtype)
    return [stored(e, y, dtype)]
