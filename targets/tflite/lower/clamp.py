"""``clamp`` (§5.5): ``MAXIMUM`` then ``MINIMUM`` with int8 constants, each where its bound is
inside int8's ends (the output's int8 type holds the rest)."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    lo, hi = op.params.lo, op.params.hi
    steps = [
        (code, bound)
        for code, bound, inside in (("MAXIMUM", lo, lo > -128), ("MINIMUM", hi, hi < 127))
        if inside
    ]
    x, y = int(ins[0]), int8_out(b, ctx, op)
    if not steps:
        b.op("RESHAPE", [x, b.tensor([4], "INT32", np.array(b.shapes[y], np.int32))], [y])
    for k, (code, bound) in enumerate(steps):
        out = y if k == len(steps) - 1 else b.tensor(b.shapes[x])
        b.op(code, [x, b.tensor([1], "INT8", np.array([bound], np.int8))], [out])
        x = out
    return [str(y)]
