"""``fill`` (§5.10): ``Expand`` of the value (a constant, or the scalar's model input) to
``[1, C, H, W]`` with the input's run-time ``H × W``. Where the target's runtime folds a
constant fill and then writes into it (:data:`~..probes.FOLDED`), the constant value is
added to the input's first channel ANDed with 0 instead, so nothing it reads is a constant."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ..probes import FOLDED
from ._common import LowerCtx, narrow


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p = op.params
    c = ctx.graph.tensor(op.outputs[0]).channels
    if p.kind == 0 and not e.exact(FOLDED, e.storage):
        first = e.slice(ins[0], e.const([0], I64), e.const([1], I64), [1])
        zero = e.node("BitwiseAnd", [first, e.const(0, e.storage)])
        value = e.node("Add", [zero, e.const(p.value, e.storage)])
        return [e.node("Expand", [value, e.const([1, c, 1, 1], I64)])]
    value = (
        e.const([[[[p.value]]]], e.storage)
        if p.kind == 0
        else narrow(e, e.reshape(ctx.scalars[p.value], [1, 1, 1, 1]))
    )
    h, w = e.hw(ins[0])
    return [e.node("Expand", [value, e.node("Concat", [e.const([1, c], I64), h, w], axis=0)])]
