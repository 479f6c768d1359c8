"""``fill`` (§5.10) with a constant value: a constant of the output's planned shape (scalars,
whose values TOSA would need as a run-time input, are refused by the exporter)."""

import numpy as np

from ..build import I32


def lower(b, op, ins, ctx):
    shape = ctx.nhwc(op.outputs[0])
    return [b.const(np.full(shape, op.params.value), I32, shape)]
