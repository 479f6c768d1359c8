"""``conv`` (§5.2): ``ConvInteger`` sums on the target's MAC array (:func:`..mac.mac_sum`),
then the requantisation recipe. A channel permutation folded into this producer (a
depth-to-space in another order, §9.4) reorders its output channels: weights and
per-channel parameters alike. On the x-first ``MatMulInteger`` path the sum comes with an
NHWC twin: it is requantised on the twin too, and where a ``pixel_shuffle`` alone reads the
output, the shuffle's order is folded into the channels so it moves the twin in whole runs
(:mod:`.pixel_shuffle`); so it is on the weights-first path, whose groups of equal taps (one
a phase) then join in channel order."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ..mac import mac_sum, matmul_path
from ..requant import requantise, room, rq_args, width
from ._common import LowerCtx, phase_major, shuffled_alone, stored


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p, t, x_range = op.params, op.outputs[0], ctx.range_of(op.inputs[0])
    shuffle = shuffled_alone(ctx.graph, t)

    def path(nhwc: bool) -> str:
        return matmul_path(e, x_range, p.weights, ctx.target, p.groups, ctx.u8s8, nhwc_read=nhwc)

    nhwc_read = (
        bool(shuffle)
        and ctx.graph.tensor(t).policy in ("derived", "clamp")
        and t not in ctx.perms
        and path(True) == "x-first"
    )
    # the sum comes NHWC (a clamp policy clips the twin too), so the shuffle moves it in
    # whole runs; or weights first, whose groups of equal taps (one a phase) join in that order
    if shuffle and t not in ctx.perms and (nhwc_read or path(False) == "weights-first"):
        ctx.perms[t] = phase_major(p.cout, shuffle.params.r)
    perm = ctx.perms.get(t, np.arange(p.cout))
    w = p.weights[perm]
    args = {
        k: [v[i] for i in perm] if isinstance(v, list) else v
        for k, v in rq_args(p.rq, p.cout, ctx.nodes.get(op.index)).items()
    }
    dtype = width(ctx.nodes.get(op.index), args, e)
    acc = mac_sum(
        e,
        ins[0],
        x_range,
        w,
        ctx.target,
        groups=p.groups,
        strides=(p.sh, p.sw),
        pads=(p.ph, p.pw, p.ph, p.pw),
        dtype=dtype,
        u8s8=ctx.u8s8,
        nhwc_read=nhwc_read,
        room=room(args, dtype),
    )
    y = stored(e, requantise(e, acc, **args, dtype=dtype), dtype)
    if acc in e.nhwc:  # the same requantisation on the sum's NHWC twin, for a consumer
        with e.channels_last():  # that reads it; whichever form nothing reads is pruned
            e.nhwc[y] = stored(e, requantise(e, e.nhwc[acc], **args, dtype=dtype), dtype)
    return [y]
