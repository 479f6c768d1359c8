"""``concat`` (§5.10): a QDQ ``Concat`` on channels."""

from waiexport.graph import Op

from ....lowering import Names
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    return [e.pattern("Concat", ins, out_type(ctx, op), axis=1)]
