"""``conv`` (§5.2), groups 1 or depthwise: ``CONV_2D`` / ``DEPTHWISE_CONV_2D`` in an exact form
(:func:`._exact.exact_form`: int8, or 16×8), its padding a ``PAD`` of zeros before it."""

import numpy as np

from waiexport.graph import Op

from ...errors import DoesNotFit
from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, out, widened, zero_padded
from ._exact import exact_form


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    p = op.params
    c_in = ctx.graph.tensor(op.inputs[0]).channels
    depthwise = p.groups == c_in == p.cout and p.groups > 1
    if p.groups != 1 and not depthwise:
        raise DoesNotFit(f"groups {p.groups}: TFLite convolves groups 1 or depthwise")
    form = exact_form(op, ctx, 0, b.dtype(int(ins[0])))
    x = widened(b, int(ins[0]), form.io)
    x = zero_padded(b, x, [[p.ph, p.ph], [p.pw, p.pw]])
    if depthwise:
        filt = np.transpose(form.weights[:, 0], (1, 2, 0))[None]  # [1, kh, kw, C]
        wt = b.tensor(filt.shape, "INT8", filt.astype(np.int8), form.scales, axis=3)
        options, code, kind = (
            b.S.DepthwiseConv2DOptionsT(),
            "DEPTHWISE_CONV_2D",
            "DepthwiseConv2DOptions",
        )
        options.depthMultiplier = 1
    else:
        filt = np.transpose(form.weights, (0, 2, 3, 1))  # [O, kh, kw, C]
        wt = b.tensor(filt.shape, "INT8", filt.astype(np.int8), form.scales, axis=0)
        options, code, kind = b.S.Conv2DOptionsT(), "CONV_2D", "Conv2DOptions"
    bt = b.tensor([p.cout], form.bias_type, form.bias, form.scales)
    options.padding = b.S.Padding.VALID
    options.strideH, options.strideW = p.sh, p.sw
    options.dilationHFactor = options.dilationWFactor = 1
    options.fusedActivationFunction = b.S.ActivationFunctionType.NONE
    y = out(b, ctx, op, at_least=form.io)
    b.op(code, [x, wt, bt], [y], options, kind)
    return [str(y)]
