"""``clamp`` (§5.5): ``MAXIMUM`` then ``MINIMUM`` with constants of the operand's type, each
where its bound is inside that type's ends (:func:`._common.clip`); the output is that
tensor."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, clip, type_for


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    type_for(*ctx.intervals[op.outputs[0]])  # the check that the output holds 16 bits
    x = clip(b, int(ins[0]), op.params.lo, op.params.hi)
    if x == int(ins[0]):  # nothing to clip: a copy, so the graph's tensor is its own
        y = b.tensor(b.shapes[x], b.dtype(x))
        b.op("RESHAPE", [x, b.tensor([4], "INT32", np.array(b.shapes[x], np.int32))], [y])
        x = y
    return [str(x)]
