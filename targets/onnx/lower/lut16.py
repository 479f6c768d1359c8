"""``lut16`` (§5.6): ``Gather`` from the 65,536-entry table at ``v + 32768``."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ._common import LowerCtx, wide


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    index = e.node("Add", [wide(e, ins[0]), e.const(32768, I64)])
    return [e.node("Gather", [e.const(op.params.table, e.storage, "table"), index], axis=0)]
