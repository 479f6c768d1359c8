"""``split`` (§5.10): a QDQ ``Slice`` of a run of channels."""

from waiexport.graph import Op

from ....lowering import Names
from ...emit import I64
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    p = op.params
    bounds = [e.const([p.start], I64), e.const([p.start + p.count], I64), e.const([1], I64)]
    return [e.pattern("Slice", ins, out_type(ctx, op), bounds)]
