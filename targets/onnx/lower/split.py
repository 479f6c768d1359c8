"""``split`` (§5.10): a ``Slice`` of channels."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p = op.params
    return [e.slice(ins[0], [p.start], [p.start + p.count], [1])]
