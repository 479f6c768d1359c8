"""``conv_transpose`` (§5.3): a transposed convolution, computed in its scatter form, then ``rq``."""

import numpy as np

from waiexport.params import ConvTranspose

from ..arrays import fit, sum_width, wide
from ..kernels import conv_transpose_acc
from ..rq import rq


def run(p: ConvTranspose, ins, ctx):
    """Add every ``Wt[ci][o][i][j]·X[ci][u][v]`` into an uncropped plane at ``(u·sh + i,
    v·sw + j)``, keep rows ``[ph, ph + Ho)`` and columns ``[pw, pw + Wo)`` (§5.3, informative:
    the same set of products as the definition); positions no tap reaches hold ``rq_o(0)``.
    The sum runs compiled in ``int32`` or ``int64`` when ``cin·kh·kw·max|w|·max|x|`` fits,
    else in Python integers."""
    x, = ins
    cin, h, w = x.shape
    uh, uw = (h - 1) * p.sh + p.kh + p.oph, (w - 1) * p.sw + p.kw + p.opw
    dtype = sum_width(x, p.weights, cin * p.kh * p.kw)
    plane = np.zeros((p.cout, uh, uw), dtype or object)
    if dtype is None:
        xs, wt = wide(x), wide(p.weights)
        for i in range(p.kh):
            for j in range(p.kw):
                plane[:, i:i + p.sh * (h - 1) + 1:p.sh, j:j + p.sw * (w - 1) + 1:p.sw] += \
                    np.tensordot(wt[:, :, i, j].T, xs, 1)
    else:
        conv_transpose_acc(x.astype(dtype), p.weights.astype(dtype), p.sh, p.sw, plane)
    return [rq(fit(plane[:, p.ph:uh - p.ph, p.pw:uw - p.pw]), p.rq)]
