"""``add`` (§5.5): a QDQ ``Add``."""

from waiexport.graph import Op

from ....lowering import Names
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    return [e.pattern("Add", ins, out_type(ctx, op))]
