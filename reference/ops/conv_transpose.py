"""``conv_transpose`` (§5.3): a transposed convolution, computed in its scatter form, then
``rq``."""

import numpy as np

from waiexport.params import ConvTranspose

from ..arrays import compact, compiled, sum_width, summed_in, wide
from ..rq import rq
from . import Inputs, OpCtx, Outputs


def run(p: ConvTranspose, ins: Inputs, ctx: OpCtx) -> Outputs:
    """Add every ``Wt[ci][o][i][j]·X[ci][u][v]`` into an uncropped plane at ``(u·sh + i,
    v·sw + j)``, keep rows ``[ph, ph + Ho)`` and columns ``[pw, pw + Wo)`` (§5.3, informative:
    the same set of products as the definition); positions no tap reaches hold ``rq_o(0)``.
    The sum runs in ``int32`` or ``int64`` when ``cin·kh·kw·max|w|·max|x|`` fits (compiled
    where it has many products, :func:`~..arrays.compiled`), else in Python integers."""
    (x,) = ins
    cin, h, w = x.shape
    uh, uw = (h - 1) * p.sh + p.kh + p.oph, (w - 1) * p.sw + p.kw + p.opw
    dtype = sum_width(x, p.weights, cin * p.kh * p.kw)
    ho, wo = uh - 2 * p.ph, uw - 2 * p.pw
    if uh * uw > 4 * ho * wo + p.kh * p.kw:
        return [rq(compact(_gathered(p, x, ho, wo, dtype)), p.rq, ctx.rounding)]
    plane = np.zeros((p.cout, uh, uw), dtype or object)
    if dtype is None or not compiled(cin * p.cout * p.kh * p.kw * h * w):
        xs, wt = summed_in(dtype, x, p.weights)
        for i in range(p.kh):
            for j in range(p.kw):
                plane[:, i : i + p.sh * (h - 1) + 1 : p.sh, j : j + p.sw * (w - 1) + 1 : p.sw] += (
                    np.tensordot(wt[:, :, i, j].T, xs, 1)
                )
    else:
        from ..kernels import conv_transpose_acc  # numba, imported where a sum runs compiled

        conv_transpose_acc(x.astype(dtype), p.weights.astype(dtype), p.sh, p.sw, plane)
    return [rq(compact(plane[:, p.ph : uh - p.ph, p.pw : uw - p.pw]), p.rq, ctx.rounding)]


def _gathered(p: ConvTranspose, x, ho, wo, dtype):
    """The same sums written straight into the output, one tap at a time: tap ``(i, j)`` of
    input ``(u, v)`` lands on output ``(u·sh + i − ph, v·sw + j − pw)`` when that lies inside.
    Used where the uncropped plane is much larger than the output (a large padding or
    stride), so memory follows the output, not the plane."""
    cin, h, w = x.shape
    acc = np.zeros((p.cout, ho, wo), dtype or object)
    xs, wt = (x, p.weights) if dtype else (wide(x), wide(p.weights))
    us, vs = np.arange(h), np.arange(w)
    for i in range(p.kh):
        ys = us * p.sh + i - p.ph
        ry = (ys >= 0) & (ys < ho)
        if not ry.any():
            continue
        for j in range(p.kw):
            xo = vs * p.sw + j - p.pw
            rx = (xo >= 0) & (xo < wo)
            if not rx.any():
                continue
            taps = xs[:, us[ry]][:, :, vs[rx]]
            acc[np.ix_(np.arange(p.cout), ys[ry], xo[rx])] += np.tensordot(
                wt[:, :, i, j].T.astype(acc.dtype), taps.astype(acc.dtype), 1
            )
    return acc
