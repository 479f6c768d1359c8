"""``crop`` (§5.10): a ``Slice``, its window from the constants or, for a scalar operand,
from the scalar's model input at run time (the host's run-time plan has already refused a
window that does not fit, §4 run step 3)."""

from ..emit import I64


def lower(e, op, ins, ctx):
    p = op.params

    def value(o):
        return e.const([o.value], I64) if o.kind == 0 else ctx.scalars[o.value]
    y0, x0 = value(p.y0), value(p.x0)
    ends = [e.node("Add", [y0, value(p.h)]), e.node("Add", [x0, value(p.w)])]
    return [e.slice(ins[0], e.node("Concat", [y0, x0], axis=0),
                    e.node("Concat", ends, axis=0), [2, 3])]
