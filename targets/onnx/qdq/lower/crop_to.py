"""``crop_to`` (§5.10): a QDQ ``Slice`` to ``ref``'s planned size (the model's shapes are
static)."""

from waiexport.graph import Op

from ....lowering import Names
from ...emit import I64
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    _, h, w = ctx.shapes[op.outputs[0]]
    bounds = [e.const([0, 0], I64), e.const([h, w], I64), e.const([2, 3], I64)]
    return [e.pattern("Slice", ins[:1], out_type(ctx, op), bounds)]
