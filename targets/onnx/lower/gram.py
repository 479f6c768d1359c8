"""``gram`` (§5.9): per group, ``A·Bᵀ`` over every position as an integer ``MatMul`` (exact on
integers, measured; never ``ReduceSum``, which goes through double), then the rounding
shift. The sums fit i32 (the graph meets acc32): the ``MatMul`` is int64, so it never wraps,
or int32 where the runtime has no exact int64 (:func:`..requant.product_type`) or no exact
int64 ``MatMul`` (tract panics on one; its int32 ``MatMul`` is exact, probed; the sum is
then widened for the shift); by ``CumSum`` where the int32 ``MatMul`` is not exact either."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I32, I64, Emitter
from ..requant import product_type
from ._common import LowerCtx, rounding_shift, wide


def _cumulated(e: Emitter, a: str, b: str, g: int, d: int) -> str:
    """``A·Bᵀ`` per group where the runtime has no exact ``MatMul`` of the type (OpenVINO's
    goes through float32): every product ``a_i·b_j`` by a broadcast ``Mul``, summed over the
    positions by ``CumSum`` (OpenVINO's is exact in int32, probed), its last position. Every
    partial sum lies in ``gram.acc`` (§8), so it fits as the sum does."""
    rows = e.reshape(a, [g, d, 1, -1])
    cols = e.reshape(b, [g, 1, d, -1])
    sums = e.node("CumSum", [e.node("Mul", [rows, cols]), e.const(3, I64)])
    return e.slice(sums, [-1], [1 << 62], [3])


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[0]).channels
    g, d = op.params.groups, c // op.params.groups
    dtype = product_type(e)
    summed = I32 if e.storage == I32 and not e.exact("MatMul", I64) else dtype
    if e.exact("MatMul", summed) or summed != I32:  # CumSum is probed on int32 alone
        a, b = (e.reshape(wide(e, x, summed), [g, d, -1]) for x in ins)
        acc = e.node("MatMul", [a, e.node("Transpose", [b], perm=[0, 2, 1])])
    else:
        acc = _cumulated(e, *(wide(e, x, summed) for x in ins), g, d)
    acc = e.reshape(acc, [1, c, 1, d])
    acc = acc if summed == dtype else e.cast(acc, dtype)
    return [rounding_shift(e, acc, op, ctx, c, dtype)]
