"""``conv_transpose`` (§5.3): ``TRANSPOSE_CONV`` in an exact form (:func:`._exact.exact_form`:
int8, or 16×8), unpadded (``VALID``: every output row ``(H − 1)·sh + kh``), then
the window §5.3 keeps by a ``SLICE`` from ``(ph, pw)``; an output padding past ``ph`` (rows
beyond the full output, which only the bias reaches) is rows of zeros below the input, whose
products add nothing."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, out, sliced, widened, zero_padded
from ._exact import exact_form


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    p = op.params
    form = exact_form(op, ctx, 1, b.dtype(int(ins[0])))
    extra = [-(-max(o - q, 0) // s) for o, q, s in ((p.oph, p.ph, p.sh), (p.opw, p.pw, p.sw))]
    x = zero_padded(b, widened(b, int(ins[0]), form.io), [[0, extra[0]], [0, extra[1]]])
    _, h, w, _ = b.shapes[x]
    full = [1, (h - 1) * p.sh + p.kh, (w - 1) * p.sw + p.kw, p.cout]
    filt = np.transpose(form.weights, (1, 2, 3, 0))  # [O, kh, kw, I]
    wt = b.tensor(filt.shape, "INT8", filt.astype(np.int8), form.scales, axis=0)
    options = b.S.TransposeConvOptionsT()
    options.padding = b.S.Padding.VALID
    options.strideH, options.strideW = p.sh, p.sw
    options.fusedActivationFunction = b.S.ActivationFunctionType.NONE
    z = b.tensor(full, form.io)
    shape = b.tensor([4], "INT32", np.array(full, np.int32))
    bt = b.tensor([p.cout], form.bias_type, form.bias, form.scales)
    b.op("TRANSPOSE_CONV", [shape, wt, x, bt], [z], options, "TransposeConvOptions")
    y = out(b, ctx, op, at_least=form.io)
    sliced(b, z, y, [0, p.ph, p.pw, 0])
    return [str(y)]
