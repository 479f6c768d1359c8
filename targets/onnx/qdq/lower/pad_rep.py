"""``pad_rep`` (§5.10): a QDQ ``Pad`` in ``edge`` mode, bottom and right, to the planned
size."""

from waiexport.graph import Op

from ....lowering import Names
from ...emit import I64
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    _, h, w = ctx.shapes[op.inputs[0]]
    _, ho, wo = ctx.shapes[op.outputs[0]]
    pads = e.const([0, 0, 0, 0, 0, 0, ho - h, wo - w], I64)
    return [e.pattern("Pad", ins, out_type(ctx, op), [pads], mode="edge")]
