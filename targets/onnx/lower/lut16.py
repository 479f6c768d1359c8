"""``lut16`` (§5.6): ``Gather`` from the 65,536-entry table at ``v + 32768``, in the graph
tensors' own type (the index lies in ``[0, 65535]``)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    index = e.node("Add", [ins[0], e.const(32768, e.storage)])
    return [e.node("Gather", [e.const(op.params.table, e.storage, "table"), index], axis=0)]
