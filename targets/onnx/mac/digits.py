"""``ConvInteger`` on base-256 digits: both operands split by sign and into digits of at most
255, u8×u8 (:func:`conv_sum`), each GEMM summing few enough channels that its int32
accumulator cannot overflow."""

from __future__ import annotations

import numpy as np

from ..emit import I32, I64, U8, Emitter
from ..requant import has_int64
from .common import I32_MAX, gemm_channels, digits_of, typed

__all__ = ["conv_sum"]


def _x_parts(e: Emitter, x: str, lo: int, hi: int) -> list[tuple[int, int, str, int]]:
    """``(sign, digit, u8 tensor, its largest value)`` with ``x = Σ sign·256^digit·tensor``.
    ``x⁺ = max(x, 0)`` is taken on an int32 tensor and ``x⁻ = x⁺ − x`` in int64, so no
    ``Max`` ever sees an int64 past 2^31 (onnxruntime 1.24 computes that wrong, measured); an
    int64 ``x`` past i32 (acc64) takes ``x⁺`` by ``Where``."""
    if lo < -(1 << 31) or hi >= 1 << 31:
        pos = e.node("Where", [e.node("Greater", [x, e.const(0, I64)]), x, e.const(0, I64)])
        split = {1: pos, -1: e.node("Sub", [pos, x])}
    elif not (has_int64(e) and e.exact("Mod", I64)):
        return _x_digits_i32(e, x, lo, hi)
    else:
        pos = e.node("Max", [x, e.const(0, I32)])
        split = {1: e.cast(pos, I64)}
        split[-1] = e.node("Sub", [split[1], e.cast(x, I64)])
    parts = []
    for sign, bound in ((1, hi), (-1, -lo)):
        if bound <= 0:
            continue
        part, n = split[sign], digits_of(bound)
        for d in range(n):
            digit = (
                part
                if n == 1
                else e.node(
                    "Mod", [e.node("Div", [part, e.const(256**d, I64)]), e.const(256, I64)], fmod=0
                )
            )
            parts.append((sign, d, e.cast(digit, U8), bound if n == 1 else 255))
    return parts


def _x_digits_i32(e: Emitter, x: str, lo: int, hi: int) -> list[tuple[int, int, str, int]]:
    """:func:`_x_parts` in int32 alone, for a runtime without exact int64 or its floor
    modulo (``x⁻ = −x`` has no int32 at ``−2^31``): ``x``'s own base-256 digits, the low
    ones in ``[0, 255]`` by floor modulo and exact division, the top one signed and split
    by sign (each part at most 128)."""
    n = 1
    while not (-128 << (8 * (n - 1))) <= lo <= hi < 128 << (8 * (n - 1)):
        n += 1
    parts, rest = [], x
    for d in range(n - 1):
        digit = e.node("Mod", [rest, e.const(256, I32)], fmod=0)
        rest = e.node("Div", [e.node("Sub", [rest, digit]), e.const(256, I32)])
        parts.append((1, d, e.cast(digit, U8), 255))
    top_lo, top_hi = lo >> (8 * (n - 1)), hi >> (8 * (n - 1))
    if top_hi > 0:
        pos = e.node("Max", [rest, e.const(0, I32)])
        parts.append((1, n - 1, e.cast(pos, U8), top_hi))
    if top_lo < 0:
        neg = e.node("Max", [e.node("Neg", [rest]), e.const(0, I32)])
        parts.append((-1, n - 1, e.cast(neg, U8), -top_lo))
    return parts


def _w_parts(w: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    parts = []
    for sign in (1, -1):
        part = np.maximum(sign * w, 0)
        if not part.any():
            continue
        n = digits_of(int(part.max()))
        for d in range(n):
            parts.append((sign, d, ((part >> (8 * d)) & 255).astype(np.uint8)))
    return parts


def conv_sum(
    e: Emitter,
    x: str,
    x_range: tuple[int, int],
    w: np.ndarray,
    *,
    groups: int,
    strides: tuple,
    pads: tuple,
    dtype: int = I64,
) -> str:
    """``Σ w·x̃`` of a (grouped) convolution as a ``dtype`` ``[1, cout, Ho, Wo]`` tensor.
    ``w`` is ``[cout, cin/groups, kh, kw]``; ``pads`` are ONNX's (top, left, bottom, right).
    The digit sums are recombined in int64; where the runtime has no exact int64, in int32
    where the sum of every term's bound fits (any partial sum does), else in int64 still,
    which that runtime's description declines by node."""
    cout, cg, kh, kw = w.shape
    sums, chunks, bound = [], set(), 0  # bound: the largest |scale·acc|, summed
    for xs, xd, xpart, x_top in _x_parts(e, x, *x_range):
        for ws, wd, wpart in _w_parts(w):
            chunk = cg if groups > 1 else gemm_channels(cg, kh * kw, x_top, int(wpart.max()))
            chunks.add(chunk)
            for c0 in range(0, cg, chunk):
                xin = xpart if chunk == cg else e.slice(xpart, [c0], [c0 + chunk], [1])
                acc = e.node(
                    "ConvInteger",
                    [xin, e.const(wpart[:, c0 : c0 + chunk], U8, "w")],
                    group=groups,
                    strides=list(strides),
                    pads=list(pads),
                    kernel_shape=[kh, kw],
                )
                sums.append((xs * ws * 256 ** (xd + wd), acc))
                bound += x_top * int(wpart.max()) * chunk * kh * kw * 256 ** (xd + wd)
    if not sums:  # every weight is 0, or x is identically 0: the sum is 0
        zero = e.node(
            "ConvInteger",
            [e.cast(e.node("Sub", [x, x]), U8), e.const(np.zeros_like(w), U8, "w")],
            group=groups,
            strides=list(strides),
            pads=list(pads),
            kernel_shape=[kh, kw],
        )
        return e.cast(zero, dtype)
    if all(abs(scale) == 1 for scale, _ in sums) and chunks == {cg}:
        # One digit each: every running total is a signed sum of whole sign-pair sums, a
        # subset sum of the certified terms, so it stays in int32 (the graph meets acc32).
        total = None
        for scale, acc in sums:
            total = (
                acc
                if total is None and scale == 1
                else e.node(
                    "Add" if scale == 1 else "Sub",
                    [total if total is not None else e.const(0, I32), acc],
                )
            )
        return typed(e, total, I32, dtype)
    # int32 where every partial sum is within ``bound``
    wide = I32 if not has_int64(e) and bound <= I32_MAX else I64
    total = None
    for scale, acc in sums:
        term = e.cast(acc, wide) if wide == I64 else acc
        if scale != 1:
            term = e.node("Mul", [term, e.const(scale, wide)])
        total = term if total is None else e.node("Add", [total, term])
    return typed(e, total, wide, dtype)
