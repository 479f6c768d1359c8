"""``split`` (§5.10): a SLICE of channels."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import TosaCtx, slice_of


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    _, h, w, _ = ctx.nhwc(op.inputs[0])
    return [slice_of(b, ins[0], [0, 0, 0, op.params.start], [1, h, w, op.params.count])]
