"""``conv`` (§5.2): a grouped 2-D convolution with zero padding, then ``rq``."""

import numpy as np

from waiexport.params import Conv

from ..arrays import fit, pad, sum_width, wide
from ..kernels import conv_acc
from ..rq import rq


def run(p: Conv, ins, ctx):
    """``acc[o][y][x] = Σ Wt[o][ci][i][j] · X̃[g·cg + ci][y·sh + i − ph][x·sw + j − pw]``;
    ``out = rq_o(acc)``. The sum runs compiled in ``int32`` or ``int64`` when
    ``cg·kh·kw·max|w|·max|x|`` fits, else in Python integers."""
    x, = ins
    cin, h, w = x.shape
    cg = cin // p.groups
    ho = (h + 2 * p.ph - p.kh) // p.sh + 1
    wo = (w + 2 * p.pw - p.kw) // p.sw + 1
    dtype = sum_width(x, p.weights, cg * p.kh * p.kw)
    if dtype is None:
        return [rq(_exact(p, x, ho, wo), p.rq)]
    acc = np.zeros((p.cout, ho, wo), dtype)
    conv_acc(pad(x, p.ph, p.pw).astype(dtype), p.weights.astype(dtype), p.sh, p.sw, p.groups, acc)
    return [rq(fit(acc), p.rq)]


def _exact(p: Conv, x, ho, wo):
    """The same sum on Python integers, one tap at a time."""
    cg, og = x.shape[0] // p.groups, p.cout // p.groups
    xp, wt = pad(wide(x), p.ph, p.pw), wide(p.weights)
    acc = np.zeros((p.cout, ho, wo), dtype=object)
    for g in range(p.groups):
        xg = xp[g * cg:(g + 1) * cg]
        for i in range(p.kh):
            for j in range(p.kw):
                taps = xg[:, i:i + p.sh * (ho - 1) + 1:p.sh, j:j + p.sw * (wo - 1) + 1:p.sw]
                acc[g * og:(g + 1) * og] += np.tensordot(wt[g * og:(g + 1) * og, :, i, j], taps, 1)
    return fit(acc)
