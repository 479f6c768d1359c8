"""``apply`` (§5.9): per group, ``A·V`` over the ``d`` channels of the group at every
position, then the rounding shift: an int64 ``MatMul`` (exact on integers); or, where the
runtime has no exact int64 (:func:`..requant.product_type`), int32 (the sums fit i32 under
acc32), a ``MatMul`` where the runtime computes it exactly, else the products broadcast and
summed over ``j`` by a tree of ``Add`` (:func:`..mac.elementwise.halves`)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ..mac.elementwise import halves
from ..requant import product_type
from ._common import LowerCtx, rounding_shift, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[1]).channels
    g, d = op.params.groups, c // op.params.groups
    dtype = product_type(e)
    a = e.reshape(wide(e, ins[0], dtype), [g, d, d])
    v = e.reshape(wide(e, ins[1], dtype), [g, d, -1])
    if e.exact("MatMul", dtype):
        acc = e.node("MatMul", [a, v])
    else:  # [g, i, j, 1] · [g, 1, j, p], summed over j
        terms = e.node(
            "Mul",
            [
                e.node("Unsqueeze", [a, e.const([3], I64)]),
                e.node("Unsqueeze", [v, e.const([1], I64)]),
            ],
        )
        acc = e.node("Squeeze", [halves(e, terms, d), e.const([2], I64)])
    acc = e.node("Reshape", [acc, e.dims(ins[1])])
    return [rounding_shift(e, acc, op, ctx, c, dtype)]
