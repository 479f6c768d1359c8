"""Convolution sums on TOSA's int8×int8→int32 MAC operators, for operands of any width the
certificate allows: each operand is split into base-128 digits (low digits ``v mod 128`` in
``[0, 127]``, a signed top digit ``⌊v / 128^k⌋``), every digit an int8, with zero points 0 (no
offset encoding, §3). The sum is ``Σ 128^(i+j)·conv(x_i, w_j)``, recombined in int32 only
where the bounds of every digit convolution, scaled, add up within int32; else refused."""

from __future__ import annotations

import numpy as np

from ..onnx.lower import ExportError
from .build import I8, I32, TosaBuilder

__all__ = ["digits", "mac_sum"]

_I32 = (1 << 31) - 1


def digits(lo: int, hi: int) -> int:
    """How many base-128 digits values in ``[lo, hi]`` need for the top one to fit int8."""
    k = 1
    while not (-128 <= lo >> (7 * (k - 1)) and hi >> (7 * (k - 1)) <= 127):
        k += 1
    return k


def _digit_range(lo: int, hi: int, k: int, i: int) -> tuple[int, int]:
    return (0, 127) if i < k - 1 else (lo >> (7 * i), hi >> (7 * i))


def _x_digits(b: TosaBuilder, x: str, lo: int, hi: int) -> list[tuple[str, tuple]]:
    k = digits(lo, hi)
    if k == 1:
        return [(b.cast(x, I8), (lo, hi))]
    x = b.cast(x, I32)
    shape, out = b.shape(x), []

    def shifted(i):  # ⌊x / 128^i⌋, exact
        return (
            x
            if i == 0
            else b.op(
                "ARITHMETIC_RIGHT_SHIFT",
                [x, b.const([7 * i], I32, [1, 1, 1, 1])],
                shape,
                I32,
                None,
                False,
            )
        )

    high = shifted(0)
    for i in range(k):
        low, high = high, shifted(i + 1) if i < k - 1 else None
        # digit i is ⌊x / 128^i⌋ − 128·⌊x / 128^(i+1)⌋ (no BITWISE_AND: Ethos-U55 has none)
        d = (
            low
            if high is None
            else b.op(
                "SUB",
                [
                    low,
                    b.op(
                        "MUL",
                        [high, b.const([128], I32, [1, 1, 1, 1]), b.const([0], I8)],
                        shape,
                        I32,
                    ),
                ],
                shape,
                I32,
            )
        )
        out.append((b.cast(d, I8), _digit_range(lo, hi, k, i)))
    return out


def _w_digits(w: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    k = digits(int(w.min()), int(w.max()))
    if k == 1:
        return [(w, np.abs(w))]
    parts = []
    for i in range(k):
        d = w >> (7 * i)
        d = d & 127 if i < k - 1 else d
        parts.append((d, np.abs(d)))
    return parts


def mac_sum(
    b: TosaBuilder,
    x: str,
    x_range: tuple[int, int],
    w: np.ndarray,
    bias: list,
    one_conv,
    reduce_axes: tuple,
) -> str:
    """``Σ w·x̃ + bias`` as an int32 tensor: ``one_conv(int8 x digit, int8 weight digit,
    bias)`` makes one MAC operator (the bias goes to the first only); ``reduce_axes`` are the
    weight axes one output channel sums over, its first axis being the output channel."""
    parts = []
    bound = max(abs(v) for v in bias)
    x_digits = _x_digits(b, x, *x_range)
    for i, (xd, (dlo, dhi)) in enumerate(x_digits):
        for j, (wd, mag) in enumerate(_w_digits(w)):
            if not wd.any():
                continue
            scale = 128 ** (i + j)
            bound += scale * int(mag.sum(axis=reduce_axes).max()) * max(abs(dlo), abs(dhi))
            if bound > _I32:
                raise ExportError(
                    f"operands in [{x_range[0]}, {x_range[1]}] and weights in "
                    f"[{int(w.min())}, {int(w.max())}]: their int8 digit "
                    "sums, recombined, could pass int32"
                )
            acc = one_conv(xd, wd, bias if not parts else [0] * len(bias))
            if scale != 1:
                acc = b.op(
                    "MUL",
                    [acc, b.const([scale], I32, [1, 1, 1, 1]), b.const([0], I8)],
                    b.shape(acc),
                    I32,
                )
            parts.append(acc)
    if not parts:  # every weight is 0: the sum is the bias
        return one_conv(x_digits[0][0], np.zeros_like(w), bias)
    total = parts[0]
    for p in parts[1:]:
        total = b.op("ADD", [total, p], b.shape(total), I32)
    return total
