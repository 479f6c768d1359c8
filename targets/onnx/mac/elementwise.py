"""Sums without an exact integer GEMM (a runtime target's facts): chains of int32 ``Mul``
and ``Add`` over strided windows (:func:`elementwise_sum`), or an int32 im2col where every
subset sum fits (:func:`subset_sums_fit_i32`)."""

from __future__ import annotations

import numpy as np

from ..emit import I32, I64, U8, Emitter
from .common import I32_MAX, im2cols, tap_window, typed

__all__ = [
    "subset_sums_fit_i32",
    "im2col_i32_sum",
    "gemm_exact",
    "elementwise_sum",
    "segments",
    "chain",
    "halves",
]


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


#: The most products one ``Mul`` of :func:`elementwise_sum` forms per output position (its
#: segments times the output channels): enough work a node to outweigh OpenVINO's cost of
#: one, few enough that a node's tensor stays near the cache (the realistic ``int_synth``
#: set, interleaved: 142 ms at 512 against 153 at 256 and 150 at 1,024; its compile 5.2 s,
#: 14.1 s at 256).
_PER_POSITION = 512


def elementwise_sum(
    e: Emitter, x: str, w: np.ndarray, *, strides: tuple, pads: tuple, dtype: int
) -> str:
    """``Σ w·x̃`` of a groups-1 convolution from int32 ``Mul`` and ``Add`` alone, for a
    runtime that computes every integer GEMM and reduction through float (OpenVINO,
    measured): the taps' windows of the padded input (strided slices, the taps whose
    weights are all zero left out) stacked on the channel axis as ``k`` rows, cut in ``s``
    segments of ``k / s`` rows, and a chain ``acc + x_j·w_j`` over the rows ``j`` of every
    segment at once, on ``[1, C, s, H, W]`` (:func:`chain`): the realistic ``int_synth``
    set's GEMMs in 0.59–0.63× the time of its products summed by trees of ``Add``
    (docs/runtimes.md). The segments are summed at the end by a tree of ``Slice`` halves.
    Every partial sum is a sum of some of an output channel's terms, which the caller has
    checked fits i32 (:func:`subset_sums_fit_i32`, §8.2)."""
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
    k = cin * len(taps)
    w2 = np.stack([w[:, :, i, j] for i, j in taps], axis=1).reshape(cout, k)
    s = segments(k, cout, _PER_POSITION)
    rows = e.node(
        "Reshape",
        [e.node("Unsqueeze", [cols, e.const([1], I64)]), e.const([1, k // s, s, 0, 0], I64)],
    )
    parts = [w2[:, j * s : (j + 1) * s].reshape(1, cout, s, 1, 1) for j in range(k // s)]
    total = e.node("Squeeze", [halves(e, chain(e, rows, parts), s), e.const([2], I64)])
    return typed(e, total, I32, dtype)


def segments(k: int, width: int, most: int) -> int:
    """How many segments of ``k`` rows run side by side: the largest divisor ``s`` of ``k``
    whose ``s·width`` products a position stay within ``most``, at least 1."""
    return max(d for d in range(1, max(1, most // width) + 1) if k % d == 0)


def chain(e: Emitter, rows: str, parts: list[np.ndarray]) -> str:
    """``Σ_j rows_j · parts[j]`` over the rows ``j`` of ``rows`` (its axis 1), each product
    added to the running sum. OpenVINO fuses a ``Mul`` and the five ``Add`` after it into
    one node (seven inputs, its most), so one product in six skips memory; the others are
    nodes of their own (its runtime model of the realistic ``int_synth`` set)."""
    acc = None
    for j, part in enumerate(parts):
        row = rows if len(parts) == 1 else e.slice(rows, [j], [j + 1], [1])
        t = e.node("Mul", [row, e.const(part, I32, "w")])
        acc = t if acc is None else e.node("Add", [acc, t])
    return acc


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
