"""``conv_transpose`` (§5.3): TRANSPOSE_CONV2D int8×int8→int32, weights ``Wt[ci][o][i][j]`` as
``[o][i][j][ci]`` with no flip, ``out_pad = [−ph, oph − ph, −pw, opw − pw]`` (measured exact),
the ``pre`` bias as its bias operand, operands wider than int8 as digits (:mod:`..mac`); then
RESCALE (:mod:`..requant`)."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import I8, I32, TosaBuilder
from ..mac import mac_sum
from ..requant import requantise
from ._common import ExportError, TosaCtx, mac_operands, pre_bias


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    p = op.params
    out_pad = [-p.ph, p.oph - p.ph, -p.pw, p.opw - p.pw]
    if min(out_pad[:2]) <= -p.kh or min(out_pad[2:]) <= -p.kw:
        raise ExportError(
            f"out_pad {out_pad}: TOSA's TRANSPOSE_CONV2D takes each greater "
            f"than minus the kernel ({p.kh}x{p.kw}); a padding that crops more "
            "is not in this exporter"
        )

    def one_conv(xd, wd, bias):
        bias, zero = mac_operands(b, bias, "TRANSPOSE_CONV2D")
        return b.op(
            "TRANSPOSE_CONV2D",
            [xd, b.const(np.transpose(wd, (1, 2, 3, 0)), I8), bias, zero, zero],
            ctx.nhwc(op.outputs[0]),
            I32,
            None,
            out_pad,
            [p.sh, p.sw],
            False,
            b.ts.DType.INT32,
        )

    # the weights' first axis is the input channel here: one output channel sums over 0, 2, 3
    acc = mac_sum(
        b,
        ins[0],
        ctx.interval(op.inputs[0]),
        np.transpose(p.weights, (1, 0, 2, 3)),
        pre_bias(p),
        lambda xd, wd, bias: one_conv(xd, np.transpose(wd, (1, 0, 2, 3)), bias),
        (1, 2, 3),
    )
    return [
        requantise(b, acc, p.rq, p.cout, ctx.nodes[op.index].intermediates["rq.t"], pre_done=True)
    ]
