"""``split`` (§5.10): a ``SLICE`` of a run of channels."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    y = int8_out(b, ctx, op)
    begin = b.tensor([4], "INT32", np.array([0, 0, 0, op.params.start], np.int32))
    size = b.tensor([4], "INT32", np.array(b.shapes[y], np.int32))
    b.op("SLICE", [int(ins[0]), begin, size], [y])
    return [str(y)]
