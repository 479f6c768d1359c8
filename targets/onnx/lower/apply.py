"""``apply`` (§5.9): per group, ``A·V`` as an int64 ``MatMul`` over the ``d`` channels of the
group at every position (exact on integers), then the rounding shift."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ..requant import requantise, span
from ._common import LowerCtx, narrow, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[1]).channels
    g, d = op.params.groups, c // op.params.groups
    a = e.reshape(wide(e, ins[0]), [g, d, d])
    v = e.reshape(wide(e, ins[1]), [g, d, -1])
    acc = e.node("MatMul", [a, v])
    acc = e.node("Reshape", [acc, e.dims(ins[1])])
    return [
        narrow(
            e,
            requantise(
                e,
                acc,
                round=op.params.rq.round,
                shifts=[int(op.params.rq.shift[0])] * c,
                span=span(ctx.nodes.get(op.index)),
            ),
        )
    ]
