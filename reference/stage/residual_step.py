"""E9 ``residual_step(pred, r, q, lo, hi) = clamp(pred + r·q, lo, hi)`` (§5E), for ``lo < hi``,
``pred ∈ [lo, hi]``, ``q ∈ [1, 65535]`` and ``r`` in i32. Where the identity's width
conditions hold (``hi − lo ≤ 65535`` and ``lo − 131070``, ``hi + 131070`` in i32) it runs in
int32, clamping ``r`` to ``±R`` first; elsewhere in int64, which holds every value the step
forms (|``r·q``| < 2^47) while ``lo`` and ``hi`` stay below 2^62, and in Python integers past
that."""

from __future__ import annotations

import numpy as np

from . import condition
from ._ints import ints

__all__ = ["residual_step", "narrow_form", "run"]

_I32 = 1 << 31


def narrow_form(q: int, lo: int, hi: int) -> bool:
    """Whether the 32-bit form's width conditions hold."""
    return hi - lo <= 65535 and -_I32 <= lo - 131070 and hi + 131070 < _I32


def residual_step(pred, r, q: int, lo: int, hi: int) -> np.ndarray:
    """The step on arrays ``pred`` and ``r`` (one ``q``, ``lo``, ``hi``)."""
    condition(lo < hi, f"lo {lo} is not below hi {hi}")
    condition(1 <= q <= 65535, f"q = {q} is not in [1, 65535]")
    pred, r = ints(pred), ints(r)
    condition(bool(((pred >= lo) & (pred <= hi)).all()), f"pred is not in [{lo}, {hi}]")
    condition(bool(((r >= -_I32) & (r < _I32)).all()), "r does not fit i32")
    if narrow_form(q, lo, hi):
        big = (hi - lo) // q + 1
        step = np.clip(r.astype(np.int32), -big, big).astype(np.int32) * np.int32(q)
        return np.clip(pred.astype(np.int32) + step, lo, hi).astype(np.int32)
    if max(abs(lo), abs(hi)) < 1 << 62:
        pred, r = pred.astype(np.int64), r.astype(np.int64)
    return np.clip(pred + r * q, lo, hi)


def run(inp: dict, modes: dict) -> dict:
    return {
        "value": int(residual_step([inp["pred"]], [inp["r"]], inp["q"], inp["lo"], inp["hi"])[0])
    }
