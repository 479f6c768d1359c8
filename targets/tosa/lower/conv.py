"""``conv`` (§5.2): CONV2D (groups 1) or DEPTHWISE_CONV2D (groups = cin = cout), int8×int8
into int32 with zero points 0 and the ``pre`` bias as its bias operand, operands wider than
int8 as digits (:mod:`..mac`); the bottom and right padding trimmed so the output size
divides exactly; then RESCALE (:mod:`..requant`)."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import I8, I32, TosaBuilder
from ..mac import mac_sum
from ..requant import requantise
from ._common import ExportError, TosaCtx, mac_operands, pre_bias, slice_of


def _trim(size: int, pad: int, k: int, stride: int) -> tuple[int, int]:
    """``(rows of input kept, padding after)`` so that TOSA's output size divides exactly:
    the rows past the last window are read by no output."""
    extra = (size + 2 * pad - k) % stride
    cut = max(extra - pad, 0)
    return size - cut, pad - (extra - cut)


def _zero_padded(b, x, axis: int, pad: int):
    """``x`` with ``pad`` zero rows (``axis`` 1) or columns (2) on each side, by CONCAT."""
    shape = list(b.shape(x))
    side = list(shape)
    side[axis] = pad
    zeros = b.const(np.zeros(side, np.int64), b.dtype(x))
    shape[axis] += 2 * pad
    return b.op("CONCAT", [zeros, x, zeros], shape, b.dtype(x), None, axis)


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    p = op.params
    _, h, w, c = ctx.nhwc(op.inputs[0])
    x = ins[0]
    pads = [p.ph, p.ph, p.pw, p.pw]
    rows, bottom = _trim(h, p.ph, p.kh, p.sh)
    cols, right = _trim(w, p.pw, p.kw, p.sw)
    if not rows or not cols:
        # every window of a side reads padding only, and TOSA has no empty tensor: the
        # padding becomes zeros in the input, and the convolution pads nothing
        for axis, pad in ((1, p.ph), (2, p.pw)):
            x = _zero_padded(b, x, axis, pad) if pad else x
        h, w, pads = h + 2 * p.ph, w + 2 * p.pw, [0, 0, 0, 0]
        rows, bottom = _trim(h, 0, p.kh, p.sh)
        cols, right = _trim(w, 0, p.kw, p.sw)
    if (rows, cols) != (h, w):
        x = slice_of(b, x, [0, 0, 0, 0], [1, rows, cols, c])
    out = ctx.nhwc(op.outputs[0])
    args = ([pads[0], bottom, pads[2], right], [p.sh, p.sw], [1, 1], False, b.ts.DType.INT32)
    if p.groups == 1:
        name, layout = "CONV2D", lambda wd: np.transpose(wd, (0, 2, 3, 1))
    elif p.groups == c == p.cout:
        name, layout = "DEPTHWISE_CONV2D", lambda wd: np.transpose(wd[:, 0], (1, 2, 0))[..., None]
    else:
        raise ExportError(f"groups {p.groups}: TOSA convolves with groups 1 or depthwise")

    def one_conv(xd, wd, bias):
        bias, zero = mac_operands(b, bias, name)
        return b.op(name, [xd, b.const(layout(wd), I8), bias, zero, zero], out, I32, None, *args)

    acc = mac_sum(b, x, ctx.interval(op.inputs[0]), p.weights, pre_bias(p), one_conv, (1, 2, 3))
    return [
        requantise(b, acc, p.rq, p.cout, ctx.nodes[op.index].intermediates["rq.t"], pre_done=True)
    ]
