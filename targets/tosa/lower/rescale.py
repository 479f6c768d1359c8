"""``rescale`` (§5.4): the requantisation alone (:mod:`..requant`) on the int32 input."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ..requant import requantise
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    c = ctx.nhwc(op.inputs[0])[3]
    return [
        requantise(
            b, b.cast(ins[0], I32), op.params.rq, c, ctx.nodes[op.index].intermediates["rq.t"]
        )
    ]
