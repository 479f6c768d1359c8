"""Exact integer arithmetic on numpy arrays: ``int64`` where the operands' magnitudes prove the
result fits, Python integers (``object`` arrays) where they do not. Never floating point (§6),
never a silent wrap.

A value's magnitude is read off the data (:func:`amax`), so the choice is a proof for these
operands, not a guess.
"""

from __future__ import annotations

import math

import numpy as np

from .integer import EXP_ZERO_N

__all__ = [
    "I64_MAX",
    "amax",
    "compact",
    "wide",
    "add",
    "sub",
    "mul",
    "shift_floor",
    "rround",
    "isqrt",
    "rsqrt_q16",
    "exp_neg_q16",
    "trunc_div",
    "floordiv",
    "pad",
    "total",
    "sum_width",
]

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def amax(a: np.ndarray) -> int:
    """The largest magnitude in ``a``, as a Python integer (0 when empty)."""
    if a.size == 0:
        return 0
    return max(-int(a.min()), int(a.max()))


def compact(a) -> np.ndarray:
    """``a`` as an ``int64`` array when every value fits i64, else as an ``object`` array."""
    a = np.asarray(a)
    if a.dtype != object:
        return a.astype(np.int64, copy=False)
    if a.size == 0 or (I64_MIN <= a.min() and a.max() <= I64_MAX):
        return a.astype(np.int64)
    return a


def wide(a) -> np.ndarray:
    """``a`` as an ``object`` array of Python integers."""
    return np.asarray(a).astype(object)


def _small(*arrays) -> bool:
    return all(np.asarray(a).dtype == np.int64 for a in arrays)


def add(a, b) -> np.ndarray:
    """``a + b``, exact."""
    if _small(a, b) and amax(np.asarray(a)) + amax(np.asarray(b)) <= I64_MAX:
        return np.asarray(a) + np.asarray(b)
    return compact(wide(a) + wide(b))


def sub(a, b) -> np.ndarray:
    """``a − b``, exact."""
    if _small(a, b) and amax(np.asarray(a)) + amax(np.asarray(b)) <= I64_MAX:
        return np.asarray(a) - np.asarray(b)
    return compact(wide(a) - wide(b))


def mul(a, b) -> np.ndarray:
    """``a · b``, exact."""
    if _small(a, b) and amax(np.asarray(a)) * amax(np.asarray(b)) <= I64_MAX:
        return np.asarray(a) * np.asarray(b)
    return compact(wide(a) * wide(b))


def shift_floor(p, s) -> np.ndarray:
    """``⌊p / 2^s⌋`` for ``s ≥ 0`` (an arithmetic right shift is a floor)."""
    p, s = np.asarray(p), np.asarray(s)
    if p.dtype == object or (s.size and int(s.max()) > 62):
        return compact(wide(p) >> wide(s))
    return p >> s


def floordiv(a, b) -> np.ndarray:
    """``⌊a / b⌋`` for ``b > 0``, exact."""
    if _small(a, b):
        return np.asarray(a) // np.asarray(b)
    return compact(wide(a) // wide(b))


_HALF = np.frompyfunc(lambda k: (1 << (k - 1)) if k > 0 else 0, 1, 1)


def rround(p, s, mode: str) -> np.ndarray:
    """§2 ``R_mode(p, s)`` elementwise; ``s`` broadcasts against ``p``."""
    p, s = np.asarray(p), np.asarray(s, dtype=np.int64)
    smax = int(s.max()) if s.size else 0
    if p.dtype == np.int64 and smax <= 62 and amax(p) + (1 << smax) <= I64_MAX:
        h = np.where(s > 0, np.left_shift(1, np.maximum(s - 1, 0)), 0)
    else:
        p, s = wide(p), wide(s)
        h = _HALF(s)
    if mode == "floor":
        return compact(p >> s)
    if mode == "half_up":
        return compact((p + h) >> s)
    q = p >> s
    r = p - (q << s)
    tie = (r == h).astype(bool) & (q % 2 == 1).astype(bool)
    up = (s > 0).astype(bool) & ((r > h).astype(bool) | tie)
    return compact(q + up.astype(np.int64))


_ISQRT = np.frompyfunc(math.isqrt, 1, 1)


def isqrt(n) -> np.ndarray:
    """§2 ``isqrt`` elementwise, for ``n ≥ 0``."""
    n = np.asarray(n)
    return compact(_ISQRT(wide(n))) if n.size else n.astype(np.int64)


def rsqrt_q16(v) -> np.ndarray:
    """§2 ``rsqrt_q16`` elementwise: ``⌊2^32 / isqrt(v)⌋``, 0 where ``isqrt(v) = 0``."""
    r = isqrt(v)
    return compact(np.where(r == 0, 0, wide(1 << 32) // wide(np.where(r == 0, 1, r))))


def exp_neg_q16(x) -> np.ndarray:
    """§2 ``exp_neg_q16`` elementwise, for ``x ≤ 0``; 0 wherever ``n ≥ 63``."""
    x = np.asarray(x)
    zero = wide(x) <= -EXP_ZERO_N * 45426
    u = -np.where(zero, 0, x).astype(np.int64)
    n = u // 45426
    t = (45426 * n - u) + 88670
    y = (((23495 * ((t * t) >> 16)) >> 16) + 22544) >> n
    return np.where(zero, 0, y)


def trunc_div(a, b: int) -> np.ndarray:
    """§2 ``trunc(a / b)`` elementwise, for ``b > 0``."""
    a = wide(a)
    q = abs(a) // b
    return compact(np.where(a >= 0, q, -q))


def pad(
    x: np.ndarray, ph: int, pw: int, bottom: int | None = None, right: int | None = None
) -> np.ndarray:
    """``x`` with ``ph`` zero rows above (``bottom`` below, ``ph`` unless given) and ``pw``
    zero columns on the left (``right`` on the right), in its own dtype (``np.pad`` would put
    numpy zeros into a Python-integer array)."""
    c, h, w = x.shape
    bottom, right = ph if bottom is None else bottom, pw if right is None else right
    out = np.zeros((c, h + ph + bottom, w + pw + right), dtype=x.dtype)
    out[:, ph : ph + h, pw : pw + w] = x
    return out


def reached(size: int, pad_: int, k: int, stride: int, out: int):
    """For one side of a padded window sweep: the outputs ``[lo, hi]`` whose window meets
    the input, the input rows ``[r0, r1]`` they read, and the zeros to add before and after
    them; ``None`` when no window meets the input. Memory then follows the input and the
    output, never the padded plane (a padding of 2^25 reads no more than a padding of 0)."""
    lo = max(0, -(-(pad_ - k + 1) // stride))
    hi = min(out - 1, (size - 1 + pad_) // stride)
    if lo > hi:
        return None
    first, last = lo * stride - pad_, hi * stride - pad_ + k - 1
    r0, r1 = max(first, 0), min(last, size - 1)
    return lo, hi, r0, r1, r0 - first, last - r1


def total(a: np.ndarray, axis: int, keepdims: bool = False) -> np.ndarray:
    """The exact sum of ``a`` along ``axis``."""
    if a.dtype == np.int64 and a.shape[axis] * amax(a) <= I64_MAX:
        return a.sum(axis=axis, keepdims=keepdims)
    return compact(wide(a).sum(axis=axis, keepdims=keepdims))


def sum_width(x: np.ndarray, w: np.ndarray, terms: int):
    """The narrowest of ``int32`` and ``int64`` that holds every partial sum of at most
    ``terms`` products of an element of ``w`` and one of ``x`` (``terms·max|w|·max|x|``), or
    ``None`` when neither does."""
    if not _small(x, w):
        return None
    bound = terms * amax(w) * amax(x)
    if bound <= (1 << 31) - 1:
        return np.int32
    return np.int64 if bound <= I64_MAX else None


def summed_in(dtype, *arrays) -> tuple:
    """``arrays`` in ``dtype`` (:func:`sum_width`'s), or as Python integers where it is
    ``None``, for a sum taken by numpy."""
    return tuple(a.astype(dtype) if dtype else wide(a) for a in arrays)


#: The fewest products a sum runs compiled for (numba's kernels): below, numpy sums them a
#: tap at a time (0.4–1.2 G products/s here, numba 10–40× that), where numba's import and
#: its first kernel's load, about 0.3 s of a process, would cost more than the sum.
COMPILED = 1 << 20


def compiled(products: int) -> bool:
    """Whether a sum of ``products`` products, in a type that holds every partial sum, runs
    compiled (:data:`COMPILED`)."""
    return products >= COMPILED
