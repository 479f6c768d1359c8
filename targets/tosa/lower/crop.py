"""``crop`` (§5.10) with constant operands (the only ones in ``wai-ops/1-npu``): a SLICE."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import ExportError, TosaCtx, slice_of


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    p = op.params
    if any(o.kind for o in (p.y0, p.x0, p.h, p.w)):
        raise ExportError("a crop with a scalar operand is outside wai-ops/1-npu")
    c = ctx.nhwc(op.inputs[0])[3]
    return [slice_of(b, ins[0], [0, p.y0.value, p.x0.value, 0], [1, p.h.value, p.w.value, c])]
