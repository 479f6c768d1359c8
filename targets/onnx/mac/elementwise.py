"""Sums without an exact integer GEMM (a runtime target's facts): int32 ``Mul`` of strided
windows and trees of ``Add`` (:func:`_elementwise_sum`), or an int32 im2col where every
subset sum fits (:func:`subset_sums_fit_i32`)."""

from __future__ import annotations

import numpy as np

from ..emit import I32, I64, U8, Emitter
from .common import I32_MAX, im2cols, tap_window, typed

__all__ = ["subset_sums_fit_i32", "im2col_i32_sum", "gemm_exact", "elementwise_sum", "halves"]


def subset_sums_fit_i32(x_range: tuple[int, int], w: np.ndarray) -> bool:
    """Whether every sum of any subset of an output channel's terms ``w·x`` (``x`` in
    ``x_range``) lies in i32: the sum of each term's most negative and most positive value."""
    lo, hi = x_range
    w = w.reshape(w.shape[0], -1).astype(object)
    ends = (w * lo, w * hi)
    low = np.minimum(np.minimum(*ends), 0).sum(axis=1)
    high = np.maximum(np.maximum(*ends), 0).sum(axis=1)
    return bool(low.min() >= -(1 << 31) and high.max() <= I32_MAX)


def im2col_i32_sum(
    e: Emitter, x: str, w: np.ndarray, *, strides: tuple, pads: tuple, dtype: int
) -> str:
    """``Σ w·x̃`` of a groups-1 convolution as one int32 ``MatMul`` over the NHWC im2col of
    ``x``, for a runtime without ``ConvInteger`` (its target's ``conv_integer``): the caller
    has checked that every partial sum, in any order, fits i32 (:func:`subset_sums_fit_i32`,
    §8.2)."""
    cout, cin, kh, kw = w.shape
    u = e.node("Transpose", [e.cast(x, I32)], perm=[0, 2, 3, 1])
    ((rows,),), ho, wo = im2cols(e, [u], cin, kh, kw, strides, pads)
    w2 = np.transpose(w, (2, 3, 1, 0)).reshape(kh * kw * cin, cout)
    acc = e.node("MatMul", [rows, e.const(w2, I32, "w")])
    total = e.node("Transpose", [e.reshape(acc, [1, ho, wo, cout])], perm=[0, 3, 1, 2])
    return typed(e, total, I32, dtype)


def gemm_exact(e: Emitter) -> bool:
    """Whether the target's runtime has an integer GEMM it computes exactly: ``ConvInteger``
    or ``MatMulInteger`` on u8, or int32 ``MatMul``."""
    return e.exact("ConvInteger", U8) or e.exact("MatMulInteger", U8) or e.exact("MatMul", I32)


#: The most products one ``Mul`` of :func:`elementwise_sum` forms per output position: its
#: tensor is 32 KiB per position (38 MiB on a 34 × 34 plane), and fewer, larger blocks mean
#: fewer nodes (the realistic ``int_synth`` set: 4,312 nodes at 4,096, 2,737 at 8,192, and
#: OpenVINO's compile time follows the node count, 4.5 s against 2.3 s).
_PRODUCTS = 8192


def elementwise_sum(
    e: Emitter, x: str, w: np.ndarray, *, strides: tuple, pads: tuple, dtype: int
) -> str:
    """``Σ w·x̃`` of a groups-1 convolution from int32 ``Mul`` and ``Add`` alone, for a
    runtime that computes every integer GEMM and reduction through float (OpenVINO,
    measured): the taps' windows of the padded input (strided slices, the taps whose
    weights are all zero left out) stacked on the channel axis, times the weights in blocks
    of at most :data:`_PRODUCTS` products per output position, broadcast, each block summed
    over the stacked axis by a tree of ``Slice`` halves and ``Add``, the blocks added. The
    stacked axis is the products' outermost (``[1, k, C, H, W]``), so each half is one
    contiguous block, which OpenVINO splits in place (with it inside, its split copied them:
    162 of 399 ms of the realistic ``int_synth``, measured). Every
    partial sum is a sum of some of an output channel's terms, which the caller has checked
    fits i32 (:func:`subset_sums_fit_i32`, §8.2)."""
    cout, cin, kh, kw = w.shape
    xp = e.node(
        "Pad",
        [
            x if e.storage == I32 else e.cast(x, I32),
            e.const([0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]], I64),
        ],
    )
    taps = [(i, j) for i in range(kh) for j in range(kw) if w[:, :, i, j].any()]
    if not taps:
        taps = [(0, 0)]
    windows = [tap_window(e, xp, i, j, (kh, kw), [2, 3], strides) for i, j in taps]
    cols = windows[0] if len(windows) == 1 else e.node("Concat", windows, axis=1)
    cols = e.node("Unsqueeze", [cols, e.const([2], I64)])
    k = cin * len(taps)
    w2 = np.stack([w[:, :, i, j] for i, j in taps], axis=1).reshape(cout, k)
    oc = min(cout, _PRODUCTS)
    kc = max(1, _PRODUCTS // oc)
    sums = []
    for o0 in range(0, cout, oc):
        acc = None
        for k0 in range(0, k, kc):
            part = w2[o0 : o0 + oc, k0 : k0 + kc]
            window = cols if part.shape[1] == k else e.slice(cols, [k0], [k0 + kc], [1])
            t = halves(
                e,
                e.node("Mul", [window, e.const(part.T[None, :, :, None, None], I32, "w")]),
                part.shape[1],
                axis=1,
            )
            acc = t if acc is None else e.node("Add", [acc, t])
        sums.append(acc)
    total = sums[0] if len(sums) == 1 else e.node("Concat", sums, axis=2)
    total = e.node("Squeeze", [total, e.const([1], I64)])
    return typed(e, total, I32, dtype)


def halves(e: Emitter, t: str, n: int, axis: int = 2) -> str:
    """The sum over ``axis`` (of ``n``) of ``t`` by a tree of ``Slice`` halves and ``Add``."""
    while n > 1:
        h = n // 2
        half = e.node("Add", [e.slice(t, [0], [h], [axis]), e.slice(t, [h], [2 * h], [axis])])
        t = (
            half
            if n % 2 == 0
            else e.node("Concat", [half, e.slice(t, [2 * h], [n], [axis])], axis=axis)
        )
        n = h + n % 2
    return t
