"""``crop`` (§5.10) with constant operands (the npu subset's, §9.2): a QDQ ``Slice``."""

from waiexport.graph import Op

from ....lowering import Names
from ...emit import I64
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    p = op.params
    y0, x0, h, w = (o.value for o in (p.y0, p.x0, p.h, p.w))
    bounds = [e.const([y0, x0], I64), e.const([y0 + h, x0 + w], I64), e.const([2, 3], I64)]
    return [e.pattern("Slice", ins[:1], out_type(ctx, op), bounds)]
