"""``conv`` (§5.2), groups 1 or depthwise: ``CONV_2D`` / ``DEPTHWISE_CONV_2D`` on int8 in its
exact form (:func:`._exact.exact_form`), its padding a ``PAD`` of zeros before it."""

import numpy as np

from waiexport.graph import Op

from ...errors import DoesNotFit
from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out, zero_padded
from ._exact import exact_form


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    p = op.params
    c_in = ctx.graph.tensor(op.inputs[0]).channels
    depthwise = p.groups == c_in == p.cout and p.groups > 1
    if p.groups != 1 and not depthwise:
        raise DoesNotFit(f"groups {p.groups}: TFLite convolves groups 1 or depthwise")
    w4, bias, sw = exact_form(op, ctx, axis=0)
    x = int(ins[0])
    x = zero_padded(b, x, [[p.ph, p.ph], [p.pw, p.pw]])
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
    bt = b.tensor([p.cout], "INT32", bias, sw)
    options.padding = b.S.Padding.VALID
    options.strideH, options.strideW = p.sh, p.sw
    options.dilationHFactor = options.dilationWFactor = 1
    options.fusedActivationFunction = b.S.ActivationFunctionType.NONE
    y = int8_out(b, ctx, op)
    b.op(code, [x, wt, bt], [y], options, kind)
    return [str(y)]
