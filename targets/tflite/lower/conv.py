"""``conv`` (§5.2), groups 1 or depthwise: ``CONV_2D`` / ``DEPTHWISE_CONV_2D`` on int8, its
padding a ``PAD`` of zeros before it. Every TFLite kernel path requantises in two roundings
(gemmlowp's ``SaturatingRoundingDoublingHighMul`` then ``RoundingDivideByPOT``, half away from
zero; ruy's two half-up ones); with a power-of-two scale ``2^−(e+2)`` the first halves its
sum, so the sum is made ``4·acc + 2`` (weights times 4, bias ``4·b + 2``): the first stage is
then exact and the second rounds ``(2·acc + 1) / 2^(e+1)``, which is never a tie for
``e ≥ 1``, to ``R_half_up(acc / 2^e)`` (shared notes, npu-runtimes). A channel of ``e = 0``
(no rounding) is ``2·acc`` at ``2^−1``: the first stage gives ``acc``, the second nothing."""

import numpy as np

from waiexport.graph import Op

from ...errors import DoesNotFit
from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out


def _exponents(rq, channels: int) -> list[int]:
    """Each channel's ``e`` with ``m / 2^s = 2^−e``; :class:`DoesNotFit` for a rounding other
    than half_up, a post bias, a multiplier that is no power of two, or ``e < 0``."""
    if rq.round != "half_up" or rq.bias_kind == "post":
        raise DoesNotFit(
            f"a {rq.round} requantisation with a {rq.bias_kind} bias: the exact "
            "form takes half_up with a pre bias"
        )
    out = []
    for m, s in zip(rq.mults(channels), rq.shifts(channels)):
        if m <= 0 or m & (m - 1):
            raise DoesNotFit(
                f"a multiplier of {m}, not a power of two: TFLite's kernels round any other twice"
            )
        out.append(s - (m.bit_length() - 1))
    if min(out) < 0 or max(out) > 28:
        raise DoesNotFit(f"a scale of 2^{-min(out)}: the exact form takes 2^0 to 2^-28")
    return out


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    p = op.params
    c_in = ctx.graph.tensor(op.inputs[0]).channels
    depthwise = p.groups == c_in == p.cout and p.groups > 1
    if p.groups != 1 and not depthwise:
        raise DoesNotFit(f"groups {p.groups}: TFLite convolves groups 1 or depthwise")
    if int(np.abs(p.weights).max()) > 31:
        raise DoesNotFit("weights past 6 bits: the exact form takes 4·w in int8")
    t = ctx.nodes[op.index].intermediates["rq.t"]
    if max(-t[0], t[1]) >= 1 << 28:
        raise DoesNotFit("a sum past 2^28: the exact form's 4·acc + 2 passes int32")
    exps = _exponents(p.rq, p.cout)
    x = int(ins[0])
    if p.ph or p.pw:
        _, h, w, c = b.shapes[x]
        padded = b.tensor([1, h + 2 * p.ph, w + 2 * p.pw, c])
        pads = b.tensor(
            [4, 2], "INT32", np.array([[0, 0], [p.ph, p.ph], [p.pw, p.pw], [0, 0]], np.int32)
        )
        b.op("PAD", [x, pads], [padded], b.S.PadOptionsT(), "PadOptions")
        x = padded
    times = np.array([2 if e == 0 else 4 for e in exps]).reshape(-1, 1, 1, 1)
    w4 = times * np.asarray(p.weights, np.int64)
    bias = (
        times.ravel() * np.array([p.rq.pre_bias(o) for o in range(p.cout)], np.int64)
        + (times.ravel() == 4) * 2
    )
    scale = [e + (1 if e == 0 else 2) for e in exps]  # each channel's scale is 2^-scale
    sw = np.array([2.0**-k for k in scale])  # the output keeps scale 1, as every tensor
    if depthwise:
        filt = np.transpose(w4[:, 0], (1, 2, 0))[None]  # [1, kh, kw, C]
        wt = b.tensor(filt.shape, "INT8", filt.astype(np.int8), sw, axis=3)
        options, code, kind = (
            b.S.DepthwiseConv2DOptionsT(),
            "DEPTHWISE_CONV_2D",
            "DepthwiseConv2DOptions",
        )
        options.depthMultiplier = 1
    else:
        filt = np.transpose(w4, (0, 2, 3, 1))  # [O, kh, kw, C]
        wt = b.tensor(filt.shape, "INT8", filt.astype(np.int8), sw, axis=0)
        options, code, kind = b.S.Conv2DOptionsT(), "CONV_2D", "Conv2DOptions"
    bt = b.tensor([p.cout], "INT32", bias.astype(np.int32), sw)
    options.padding = b.S.Padding.VALID
    options.strideH, options.strideW = p.sh, p.sw
    options.dilationHFactor = options.dilationWFactor = 1
    options.fusedActivationFunction = b.S.ActivationFunctionType.NONE
    y = int8_out(b, ctx, op)
    b.op(code, [x, wt, bt], [y], options, kind)
    return [str(y)]
