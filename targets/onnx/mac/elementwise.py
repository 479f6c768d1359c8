"""Sums without an exact integer GEMM (a runtime target's facts): chains of int32 ``Mul``
and ``Add`` over the taps' rows (:func:`elementwise_sum`), or an int32 im2col where every
subset sum fits (:func:`subset_sums_fit_i32`)."""

from __future__ import annotations

import numpy as np

from ..emit import I32, I64, U8, Emitter
from .common import END, I32_MAX, im2cols, tap_window, typed

__all__ = [
    "subset_sums_fit_i32",
    "im2col_i32_sum",
    "gemm_exact",
    "elementwise_sum",
    "segments",
    "row_blocks",
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
#: segments times the output channels): a node's tensor near the cache, enough work a node
#: to outweigh OpenVINO's cost of one (the realistic ``int_synth`` set's last layer, 64→3
#: at 64×64, interleaved: 0.71× the time at 24 and 48 of that at 512, 0.73× at 96).
_PER_POSITION = 48

#: The most steps of one chain: OpenVINO's compile time grows faster than a chain's length
#: (0.27 s at 200 steps, 0.8 at 400, 2.0 at 800, measured), so a convolution of many rows
#: and few output channels takes longer segments instead.
_LONGEST = 192


def elementwise_sum(
    e: Emitter, x: str, w: np.ndarray, *, strides: tuple, pads: tuple, dtype: int
) -> str:
    """``Σ w·x̃`` of a groups-1 convolution from int32 ``Mul`` and ``Add`` alone, for a
    runtime that computes every integer GEMM and reduction through float (OpenVINO,
    measured): each tap's rows (the taps whose weights are all zero left out) in ``s``
    segments of input channels, a chain ``acc + x_j·w_j`` over the rows ``j`` of every
    segment at once, on ``[1, C, s, …]`` (:func:`chain`), the segments summed at the end by
    a tree of ``Slice`` halves. At stride 1 a tap's rows are views (:func:`_views`), else its
    window by a strided ``Slice``. Every partial sum is a sum of some of an output channel's
    terms (a row's wrapped positions, cropped, read other inputs or padding), which the
    caller has checked fits i32 (:func:`subset_sums_fit_i32`, §8.2)."""
    cout, cin, kh, kw = w.shape
    taps = [(i, j) for i in range(kh) for j in range(kw) if w[:, :, i, j].any()] or [(0, 0)]
    s = segments(cin, cout, _PER_POSITION, -(-len(taps) * cin // _LONGEST))
    x32 = x if e.storage == I32 else e.cast(x, I32)
    view = tuple(strides) == (1, 1)
    xp = e.node(
        "Pad", [x32, e.const([0, 0, pads[0], pads[1], 0, int(view), pads[2], pads[3]], I64)]
    )
    blocks = cin // s
    if view:
        hw = e.hw(xp)
        rows = _views(e, xp, hw, taps, s, blocks)
    else:
        rows = []
        for i, j in taps:
            window = tap_window(e, xp, i, j, (kh, kw), [2, 3], strides)
            cut = e.reshape(e.node("Unsqueeze", [window, e.const([1], I64)]), [1, blocks, s, 0, 0])
            rows += row_blocks(e, cut, blocks)
    parts = [
        w[:, b * s : (b + 1) * s, i, j].reshape(1, cout, s, 1, 1)
        for i, j in taps
        for b in range(blocks)
    ]
    total = e.node("Squeeze", [halves(e, chain(e, rows, parts), s), e.const([2], I64)])
    if view:
        end = [1 - k if k > 1 else END for k in (kh, kw)]
        total = e.slice(e.reshape(total, [1, cout, *hw]), [0, 0], end, [2, 3])
    return typed(e, total, I32, dtype)


def _views(e: Emitter, xp: str, hw: tuple, taps: list, s: int, blocks: int) -> list[str]:
    """Each tap's rows of the padded input ``xp`` (its last channel all zero; ``hw`` its
    height and width), ``s`` channels a row ``[1, 1, s, 1, Hp·Wp]``, as views: ``xp`` flat,
    cut by one ``Split`` a tap at its offset ``i·Wp + j``, so a row's position ``r·Wp + c``
    holds input ``(r + i, c + j)``; those past a row's end wrap to the next (read, then
    cropped). OpenVINO splits in place where every axis before the cut has size 1, so no
    window is copied (the realistic ``int_synth`` set's last layer, interleaved: 0.66× the
    time of its windows by ``Slice``). Each side is taken through ``Min`` with 2^31 − 1 (no
    side reaches it): after a strided ``Slice`` OpenVINO's bounds of the two sides overflow
    in their product on dynamic shapes, and it folded the cut to sizes 0 (measured)."""
    plane = e.node("Mul", [e.node("Min", [d, e.const([I32_MAX], I64)]) for d in hw])
    flat, segment = e.reshape(xp, [1, -1]), e.times(plane, s)
    rows = []
    for i, j in taps:
        offset = e.node("Add", [e.times(hw[1], i), e.const([j], I64)])
        head = [offset] if (i, j) != (0, 0) else []
        sizes = e.node(
            "Concat", [*head, *[segment] * blocks, e.node("Sub", [plane, offset])], axis=0
        )
        cut = e.node("Split", [flat, sizes], n_out=len(head) + blocks + 1, axis=1)
        rows += [e.reshape(v, [1, 1, s, 1, -1]) for v in cut[len(head) : -1]]
    return rows


def row_blocks(e: Emitter, t: str, n: int) -> list[str]:
    """The ``n`` blocks of ``t`` on its axis 1, one a row of a chain (:func:`chain`), by
    ``Slice`` (OpenVINO cuts them in place); ``t`` itself where ``n`` is 1."""
    return [t] if n == 1 else [e.slice(t, [b], [b + 1], [1]) for b in range(n)]


def segments(k: int, width: int, most: int, fewest: int = 1) -> int:
    """How many segments of ``k`` rows run side by side: the largest divisor ``s`` of ``k``
    whose ``s·width`` products a position stay within ``most``, at least 1, or the least
    divisor from ``fewest`` up where that is larger."""
    divisors = [d for d in range(1, k + 1) if k % d == 0]
    return max(
        max(d for d in divisors if d == 1 or d * width <= most),
        min(d for d in divisors if d >= min(fewest, k)),
    )


def chain(e: Emitter, rows: list[str], parts: list[np.ndarray]) -> str:
    """``Σ_j rows[j] · parts[j]``, each product added to the running sum. OpenVINO fuses a
    ``Mul`` and the five ``Add`` after it into one node (seven inputs, its most), so one
    product in six skips memory; the others are nodes of their own (its runtime model of
    the realistic ``int_synth`` set)."""
    acc = None
    for row, part in zip(rows, parts, strict=True):
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
