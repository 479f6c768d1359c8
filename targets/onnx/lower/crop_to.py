"""``crop_to`` (§5.10): ``Slice`` to ``ref``'s run-time ``H′ × W′``."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    ends = e.slice(e.dims(ins[1]), [2], [4], [0])
    return [e.slice(ins[0], [0, 0], ends, [2, 3])]
