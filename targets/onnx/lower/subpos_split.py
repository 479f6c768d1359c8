"""``subpos_split`` (§5.10): four ``Slice``s of step 2."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx

BIG = 1 << 62


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    return [e.slice(ins[0], [k >> 1, k & 1], [BIG, BIG], [2, 3], [2, 2]) for k in op.params.order]
