"""``crop_to`` (§5.10): a SLICE to the reference tensor's planned size."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import TosaCtx, slice_of


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    return [slice_of(b, ins[0], [0, 0, 0, 0], ctx.nhwc(op.outputs[0]))]
