"""``clamp`` (§5.5): the input in its output's type, then a QDQ ``Clip`` where the type's
window is not the bounds (:func:`._common.clip`)."""

from waiexport.graph import Op

from ....lowering import Names
from ..emit import QdqEmitter
from ._common import QdqCtx, clip, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    dtype = out_type(ctx, op)
    x = ins[0] if e.types[ins[0]] == dtype else e.pattern("Identity", ins, dtype)
    return [clip(e, x, op.params.lo, op.params.hi)]
