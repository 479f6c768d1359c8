"""``add`` (§5.5): int32 ``Add``; the sum fits, the graph meets ``acc32``."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    return [e.node("Add", ins)]
