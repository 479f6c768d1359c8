"""``crop`` (§5.10): a ``Slice``, its window from the constants or, for a scalar operand,
from the scalar's model input at run time (the host's run-time plan has already refused a
window that does not fit, §4 run step 3). The window is a size within the tensor's sides,
so where the target's runtime narrows int64 arithmetic and computes int32 windows exactly
(``int32_windows``), it is computed in int32, a scalar cast there. Where an offset is a
scalar and the size is constant, the window's size is stated again by a ``Reshape`` to it,
so a runtime that plans shapes ahead (TVM's relax frontend, which otherwise takes no operator
after it: "emit_te now only supports Tensor that has ShapeExpr shape") knows it."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I32, I64, Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p = op.params
    index = I32 if ctx.target is not None and ctx.target.options.int32_windows else I64

    def value(o):
        if o.kind == 0:
            return e.const([o.value], index)
        return ctx.scalars[o.value] if index == I64 else e.cast(ctx.scalars[o.value], I32)

    y0, x0 = value(p.y0), value(p.x0)
    ends = [e.node("Add", [y0, value(p.h)]), e.node("Add", [x0, value(p.w)])]
    out = e.slice(
        ins[0],
        e.node("Concat", [y0, x0], axis=0),
        e.node("Concat", ends, axis=0),
        [2, 3],
        index=index,
    )
    if (p.y0.kind or p.x0.kind) and not (p.h.kind or p.w.kind):
        out = e.reshape(out, [1, ctx.graph.tensor(op.inputs[0]).channels, p.h.value, p.w.value])
    return [out]
