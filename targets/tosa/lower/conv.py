"""``conv`` (§5.2): CONV2D (groups 1) or DEPTHWISE_CONV2D (groups = cin = cout), int8×int8
into int32 with zero points 0 and the ``pre`` bias as its bias operand, operands wider than
int8 as digits (:mod:`..mac`); the bottom and right padding trimmed so the output size
divides exactly; then RESCALE (:mod:`..requant`)."""

import numpy as np

from ..build import I8, I32
from ..mac import mac_sum
from ..requant import requantise
from ._common import ExportError, mac_operands, pre_bias, slice_of


def _trim(size: int, pad: int, k: int, stride: int) -> tuple[int, int]:
    """``(rows of input kept, padding after)`` so that TOSA's output size divides exactly:
    the rows past the last window are read by no output."""
    extra = (size + 2 * pad - k) % stride
    cut = max(extra - pad, 0)
    return size - cut, pad - (extra - cut)


def lower(b, op, ins, ctx):
    p = op.params
    _, h, w, c = ctx.nhwc(op.inputs[0])
    x = ins[0]
    rows, bottom = _trim(h, p.ph, p.kh, p.sh)
    cols, right = _trim(w, p.pw, p.kw, p.sw)
    if (rows, cols) != (h, w):
        x = slice_of(b, x, [0, 0, 0, 0], [1, rows, cols, c])
    out = ctx.nhwc(op.outputs[0])
    args = ([p.ph, bottom, p.pw, right], [p.sh, p.sw], [1, 1], False, b.ts.DType.INT32)
    if p.groups == 1:
        name, layout = "CONV2D", lambda wd: np.transpose(wd, (0, 2, 3, 1))
    elif p.groups == c == p.cout:
        name, layout = "DEPTHWISE_CONV2D", lambda wd: np.transpose(wd[:, 0], (1, 2, 0))[..., None]
    else:
        raise ExportError(f"groups {p.groups}: TOSA convolves with groups 1 or depthwise")

    def one_conv(xd, wd, bias):
        bias, zero = mac_operands(b, bias, name)
        return b.op(name, [xd, b.const(layout(wd), I8), bias, zero, zero], out, I32, None,
                    *args)
    acc = mac_sum(b, x, ctx.interval(op.inputs[0]), p.weights, pre_bias(p), one_conv,
                  (1, 2, 3))
    return [requantise(b, acc, p.rq, p.cout, ctx.nodes[op.index].intermediates["rq.t"],
                       pre_done=True)]
