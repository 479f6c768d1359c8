"""``chunk_add`` (§5.5): the two halves of the channels, added."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    half = ctx.graph.tensor(op.inputs[0]).channels // 2
    return [
        e.node("Add", [e.slice(ins[0], [0], [half], [1]), e.slice(ins[0], [half], [2 * half], [1])])
    ]
