"""``pixel_shuffle`` (§5.10): a QDQ ``DepthToSpace`` in ``CRD`` order, §5.10's."""

from waiexport.graph import Op

from ....lowering import Names
from ..emit import QdqEmitter
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    return [e.pattern("DepthToSpace", ins, out_type(ctx, op), blocksize=op.params.r, mode="CRD")]
