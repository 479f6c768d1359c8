"""``abs`` (§5.5)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    return [e.node("Abs", ins)]
