"""``leaky`` (§5.5): ``v`` where ``v ≥ 0``, else ``⌊v·a / 2^f⌋``, as
``max(v, 0) + ⌊min(v, 0)·a / 2^f⌋`` (each term is 0 where the other is the result). The product
is formed on ``min(v, 0)`` only (its certified interval, ``leaky.p``, covers negative ``v``), as
an int32 MUL with shift 0; the floor is RESCALE's half up of ``p − 2^(f−1)`` (§9.4). No
SELECT or comparison, which Ethos-U55 lacks."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I8, I32, TosaBuilder
from ..requant import lift
from ._common import ExportError, TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    a, f = op.params.a, op.params.f
    x = b.cast(ins[0], I32)
    shape = b.shape(x)
    neg = b.op("MINIMUM", [x, b.const([0], I32, [1, 1, 1, 1])], shape, I32, None, b.nan())
    lo, hi = ctx.nodes[op.index].intermediates["leaky.p"]
    try:
        p = b.op("MUL", [neg, b.const([a], I32, [1, 1, 1, 1]), b.const([0], I8)], shape, I32)
    except ValueError:
        raise ExportError(f"slope {a} past int32") from None
    if f:
        half = 1 << (f - 1)
        if lo - half < -(1 << 31):
            raise ExportError(f"p - 2^{f - 1} leaves int32 on [{lo}, {hi}]")
        m, s = lift(1, f, min(lo, 0) - half, max(hi, 0) - half)
        p = b.op("ADD", [p, b.const([-half], I32, [1, 1, 1, 1])], shape, I32)
        p = b.op(
            "RESCALE",
            [p, b.const([m], I32), b.const([s], I8), b.const([0], I32), b.const([0], I32)],
            shape,
            I32,
            None,
            True,
            b.ts.RoundingMode.SINGLE_ROUND,
            False,
            False,
            False,
        )
    pos = b.op("MAXIMUM", [x, b.const([0], I32, [1, 1, 1, 1])], shape, I32, None, b.nan())
    return [b.op("ADD", [pos, p], shape, I32)]
