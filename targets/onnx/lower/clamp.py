"""``clamp`` (§5.5): int32 ``Clip``; bounds past i32 clip nothing a certified value reaches."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import Emitter
from ._common import LowerCtx, clip


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    return [clip(e, ins[0], op.params.lo, op.params.hi)]
