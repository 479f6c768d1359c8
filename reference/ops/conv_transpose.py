"""``conv_transpose`` (§5.3): a transposed convolution, computed in its scatter form, then ``rq``."""

import numpy as np

from waiexport.params import ConvTranspose

from ..arrays import I64_MAX, amax, fit, wide
from ..rq import rq


def run(p: ConvTranspose, ins, ctx):
    """Add every ``Wt[ci][o][i][j]·X[ci][u][v]`` into an uncropped plane at ``(u·sh + i,
    v·sw + j)``, keep rows ``[ph, ph + Ho)`` and columns ``[pw, pw + Wo)`` (§5.3, informative:
    the same set of products as the definition); positions no tap reaches hold ``rq_o(0)``."""
    x, = ins
    cin, h, w = x.shape
    uh, uw = (h - 1) * p.sh + p.kh + p.oph, (w - 1) * p.sw + p.kw + p.opw
    small = x.dtype == np.int64 and cin * p.kh * p.kw * amax(p.weights) * amax(x) <= I64_MAX
    xs, wt = (x, p.weights) if small else (wide(x), wide(p.weights))
    plane = np.zeros((p.cout, uh, uw), dtype=np.int64 if small else object)
    for i in range(p.kh):
        for j in range(p.kw):
            plane[:, i:i + p.sh * (h - 1) + 1:p.sh, j:j + p.sw * (w - 1) + 1:p.sw] += \
                np.tensordot(wt[:, :, i, j].T, xs, 1)
    return [rq(fit(plane[:, p.ph:uh - p.ph, p.pw:uw - p.pw]), p.rq)]
