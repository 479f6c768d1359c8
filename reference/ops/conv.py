"""``conv`` (§5.2): a grouped 2-D convolution with zero padding, then ``rq``."""

import numpy as np

from waiexport.params import Conv

from ..arrays import compact, compiled, pad, reached, sum_width, summed_in
from ..rq import rq
from . import Inputs, OpCtx, Outputs


def run(p: Conv, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``acc[o][y][x] = Σ Wt[o][ci][i][j] · X̃[g·cg + ci][y·sh + i − ph][x·sw + j − pw]``;
    ``out = rq_o(acc)``. The sum runs in ``int32`` or ``int64`` when ``cg·kh·kw·max|w|·max|x|``
    fits (compiled where it has many products, :func:`~..arrays.compiled`), else in Python
    integers."""
    (x,) = ins
    cin, h, w = x.shape
    cg = cin // p.groups
    ho = (h + 2 * p.ph - p.kh) // p.sh + 1
    wo = (w + 2 * p.pw - p.kw) // p.sw + 1
    dtype = sum_width(x, p.weights, cg * p.kh * p.kw)
    acc = np.zeros((p.cout, ho, wo), dtype or np.int64)
    rows, cols = reached(h, p.ph, p.kh, p.sh, ho), reached(w, p.pw, p.kw, p.sw, wo)
    if rows is None or cols is None:  # every window lies in the padding: the sums are 0
        return [rq(acc, p.rq, ctx.rounding)]
    (y0, y1, r0, r1, top, bottom), (x0, x1, c0, c1, left, right) = rows, cols
    xp = pad(x[:, r0 : r1 + 1, c0 : c1 + 1], top, left, bottom, right)
    ho, wo = y1 - y0 + 1, x1 - x0 + 1
    if dtype is None or not compiled(p.cout * cg * p.kh * p.kw * ho * wo):
        acc = acc if dtype else acc.astype(object)
        acc[:, y0 : y1 + 1, x0 : x1 + 1] = _taps(p, xp, ho, wo, dtype)
        return [rq(compact(acc), p.rq, ctx.rounding)]
    part = np.zeros((p.cout, ho, wo), dtype)
    from ..kernels import conv_acc  # numba, imported where a sum runs compiled

    conv_acc(xp.astype(dtype), p.weights.astype(dtype), p.sh, p.sw, p.groups, part)
    acc[:, y0 : y1 + 1, x0 : x1 + 1] = part
    return [rq(compact(acc), p.rq, ctx.rounding)]


def _taps(p: Conv, xp, ho, wo, dtype):
    """The same sum one tap at a time over the padded input ``xp``, by numpy: in ``dtype``,
    which holds every partial sum, or on Python integers (``None``)."""
    cg, og = xp.shape[0] // p.groups, p.cout // p.groups
    xp, wt = summed_in(dtype, xp, p.weights)
    acc = np.zeros((p.cout, ho, wo), dtype=dtype or object)
    for g in range(p.groups):
        xg = xp[g * cg : (g + 1) * cg]
        for i in range(p.kh):
            for j in range(p.kw):
                taps = xg[:, i : i + p.sh * (ho - 1) + 1 : p.sh, j : j + p.sw * (wo - 1) + 1 : p.sw]
                acc[g * og : (g + 1) * og] += np.tensordot(
                    wt[g * og : (g + 1) * og, :, i, j], taps, 1
                )
    return compact(acc)
