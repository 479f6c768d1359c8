"""``fill`` (§5.10): ``Expand`` of the value (a constant, or the scalar's model input) to
``[1, C, H, W]`` with the input's run-time ``H × W``."""

from ..emit import I64
from ._common import narrow


def lower(e, op, ins, ctx):
    p = op.params
    value = e.const([[[[p.value]]]], e.storage) if p.kind == 0 else \
        narrow(e, e.reshape(ctx.scalars[p.value], [1, 1, 1, 1]))
    c = ctx.graph.tensor(op.outputs[0]).channels
    h, w = e.hw(ins[0])
    return [e.node("Expand", [value, e.node("Concat", [
        e.const([1, c], I64), h, w], axis=0)])]
