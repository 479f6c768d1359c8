"""``abs`` (§5.5): a QDQ ``Abs``."""

from waiexport.graph import Op

from ....lowering import Names
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    return [e.pattern("Abs", ins, out_type(ctx, op))]
