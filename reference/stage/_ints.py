"""Integer arrays for the stage operators: int64 where every value fits i32 (so the sums and
shifts the operators form stay in int64), Python integers in an object array otherwise."""

from __future__ import annotations

import numpy as np

__all__ = ["ints", "half_up", "clamped", "field"]

_I32 = 1 << 31


def ints(values) -> np.ndarray:
    """``values`` as an exact integer array (int64, or object for values past i32)."""
    if (
        isinstance(values, np.ndarray)
        and values.dtype.kind in "iu"
        and (not values.size or (values.min() >= -_I32 and values.max() < _I32))
    ):
        return values.astype(np.int64)
    a = np.array(values, dtype=object)
    return a.astype(np.int64) if all(-_I32 <= int(v) < _I32 for v in a.flat) else a


def half_up(v: np.ndarray, s: int) -> np.ndarray:
    """§2 ``R_half_up(v, s)`` elementwise: ``⌊(⌊v / 2^(s−1)⌋ + 1) / 2⌋`` for ``s ≥ 1``, which
    never forms ``v + 2^(s−1)`` (an int64 shift saturates at 63, where every i32 value has
    already become 0 or −1)."""
    if s == 0:
        return v
    k = s - 1 if v.dtype == object else min(s - 1, 63)
    return ((v >> k) + 1) >> 1


def clamped(v: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """``clip(v, lo, hi)`` elementwise, an int64 array where every value then fits i32 (so an
    object array of values past i32, clamped into it, becomes one)."""
    v = np.clip(v, lo, hi)
    return ints(v) if v.dtype == object else v


def field(x):
    """A vector's tensor ``{data, shape}`` as an integer array of its shape."""
    return ints(x["data"]).reshape([int(d) for d in x["shape"]])
