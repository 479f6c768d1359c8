"""``conv`` (§5.2): a grouped 2-D convolution with zero padding, then ``rq``."""

import numpy as np

from waiexport.params import Conv

from ..arrays import I64_MAX, amax, fit, pad, wide
from ..rq import rq


def run(p: Conv, ins, ctx):
    """``acc[o][y][x] = Σ Wt[o][ci][i][j] · X̃[g·cg + ci][y·sh + i − ph][x·sw + j − pw]``, exact
    (``int64`` when ``cg·kh·kw·max|w|·max|x|`` fits, else Python integers); ``out = rq_o(acc)``."""
    x, = ins
    cin, h, w = x.shape
    cg, og = cin // p.groups, p.cout // p.groups
    ho = (h + 2 * p.ph - p.kh) // p.sh + 1
    wo = (w + 2 * p.pw - p.kw) // p.sw + 1
    small = x.dtype == np.int64 and cg * p.kh * p.kw * amax(p.weights) * amax(x) <= I64_MAX
    xp = pad(x if small else wide(x), p.ph, p.pw)
    wt = p.weights if small else wide(p.weights)
    acc = np.zeros((p.cout, ho, wo), dtype=np.int64 if small else object)
    for g in range(p.groups):
        xg = xp[g * cg:(g + 1) * cg]
        for i in range(p.kh):
            for j in range(p.kw):
                taps = xg[:, i:i + p.sh * (ho - 1) + 1:p.sh, j:j + p.sw * (wo - 1) + 1:p.sw]
                acc[g * og:(g + 1) * og] += np.tensordot(wt[g * og:(g + 1) * og, :, i, j], taps, 1)
    return [rq(fit(acc), p.rq)]
