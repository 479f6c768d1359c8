"""``relu`` (§5.5): a QDQ ``Relu``."""

from waiexport.graph import Op

from ....lowering import Names
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    return [e.pattern("Relu", ins, out_type(ctx, op))]
