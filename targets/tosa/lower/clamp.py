"""``clamp`` (§5.5): int32 MAXIMUM then MINIMUM (TOSA's CLAMP takes int8/int16 only)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import TosaCtx, clip


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    return [clip(b, ins[0], op.params.lo, op.params.hi)]
