"""``chscale`` (§5.4): one per-channel RESCALE per row of ``M`` (:mod:`..requant`), and a
SELECT on the row index, the scalar's model input."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ..requant import rescale_unit
from ._common import ExportError, TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    p = op.params
    if p.round != "half_up":
        raise ExportError(f"rounding {p.round} with a multiplier: RESCALE rounds half up only")
    x = b.cast(ins[0], I32)
    t_range = ctx.nodes[op.index].intermediates["rq.t"]
    row = ctx.scalars[p.scalar]
    out = None
    for r, mults in enumerate(p.table.tolist()):
        y = rescale_unit(b, x, mults, [p.shift] * len(mults), t_range)
        if out is None:
            out = y
            continue
        pick = b.op("EQUAL", [row, b.const([r], I32, [1, 1, 1, 1])], (1, 1, 1, 1), "bool")
        out = b.op("SELECT", [pick, y, out], b.shape(x), I32)
    return [out]
