"""``conv_transpose`` (§5.3): TRANSPOSE_CONV2D int8×int8→int32, weights ``Wt[ci][o][i][j]`` as
``[o][i][j][ci]`` with no flip, ``out_pad = [−ph, oph − ph, −pw, opw − pw]`` (measured exact),
the ``pre`` bias as its bias operand; then RESCALE (:mod:`..requant`)."""

import numpy as np

from ..build import I8, I32
from ..requant import requantise
from ._common import ExportError, int8_operand


def lower(b, op, ins, ctx):
    p = op.params
    if p.weights.min() < -128 or p.weights.max() > 127:
        raise ExportError("weights past int8: TOSA's TRANSPOSE_CONV2D takes int8 weights")
    out_pad = [-p.ph, p.oph - p.ph, -p.pw, p.opw - p.pw]
    if min(out_pad[:2]) <= -p.kh or min(out_pad[2:]) <= -p.kw:
        raise ExportError(f"out_pad {out_pad}: TOSA's TRANSPOSE_CONV2D takes each greater "
                          f"than minus the kernel ({p.kh}x{p.kw}); a padding that crops more "
                          "is not in this exporter")
    x = int8_operand(b, ins[0], op.inputs[0], ctx)
    bias = [int(v) for v in p.rq.bias] if p.rq.bias_kind == "pre" else [0]
    try:
        bias = b.const(bias * p.cout if len(bias) == 1 else bias, I32)
    except ValueError:
        raise ExportError("a pre bias past int32 for TRANSPOSE_CONV2D's bias operand") from None
    zero = b.const([0], I8)
    acc = b.op("TRANSPOSE_CONV2D",
               [x, b.const(np.transpose(p.weights, (1, 2, 3, 0)), I8), bias, zero, zero],
               ctx.nhwc(op.outputs[0]), I32, None,
               out_pad, [p.sh, p.sw], False,
               b.ts.DType.INT32)
    return [requantise(b, acc, p.rq, p.cout, ctx.nodes[op.index].intermediates["rq.t"],
                       pre_done=True)]
