"""``pixel_unshuffle`` (§5.10): the inverse of ``pixel_shuffle``."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    r = op.params.r
    c = ctx.graph.tensor(op.inputs[0]).channels
    h, w = e.hw(ins[0])
    y = e.reshape(ins[0], [1, c, e.over(h, r), r, e.over(w, r), r])
    y = e.node("Transpose", [y], perm=[0, 1, 3, 5, 2, 4])
    return [e.reshape(y, [1, c * r * r, e.over(h, r), e.over(w, r)])]
