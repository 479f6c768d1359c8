"""``subpos_merge`` (§5.10): the four inputs stacked by sub-position, then interleaved."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[0]).channels
    by_position = [ins[op.params.order.index(k)] for k in range(4)]
    axis = e.const([2], I64)
    y = e.node("Concat", [e.node("Unsqueeze", [x, axis]) for x in by_position], axis=2)
    h, w = e.hw(ins[0])
    y = e.reshape(y, [1, c, 2, 2, h, w])
    y = e.node("Transpose", [y], perm=[0, 1, 4, 2, 5, 3])
    return [e.reshape(y, [1, c, e.times(h, 2), e.times(w, 2)])]
