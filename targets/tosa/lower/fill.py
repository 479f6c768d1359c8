"""``fill`` (§5.10): a constant of the output's planned shape, or the scalar's model input
added to zeros of that shape."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import I32, TosaBuilder
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    p = op.params
    shape = ctx.nhwc(op.outputs[0])
    if p.kind == 0:
        return [b.const(np.full(shape, p.value), I32, shape)]
    return [
        b.op("ADD", [b.const(np.zeros(shape, int), I32, shape), ctx.scalars[p.value]], shape, I32)
    ]
