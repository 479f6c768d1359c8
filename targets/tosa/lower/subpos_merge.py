"""``subpos_merge`` (§5.10): each input RESHAPE-d to ``[1, H, 1, W, 1, C]``, CONCAT-ed by
column offset then by row offset into ``[1, H, 2, W, 2, C]``, RESHAPE-d to ``[1, 2H, 2W, C]``."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    _, h, w, c = ctx.nhwc(op.inputs[0])
    at = {}
    for k, x in zip(op.params.order, ins):
        at[k] = b.op(
            "RESHAPE", [b.cast(x, I32), b.shape_of([1, h, 1, w, 1, c])], (1, h, 1, w, 1, c), I32
        )
    rows = [
        b.op("CONCAT", [at[2 * a], at[2 * a + 1]], (1, h, 1, w, 2, c), I32, None, 4) for a in (0, 1)
    ]
    both = b.op("CONCAT", rows, (1, h, 2, w, 2, c), I32, None, 2)
    return [b.op("RESHAPE", [both, b.shape_of([1, 2 * h, 2 * w, c])], (1, 2 * h, 2 * w, c), I32)]
