"""E5 ``scale_index(v, s, n) = clamp(R_half_up(v, s), 0, n − 1)`` (§5E), for ``s`` in
``0..=127`` and ``n ≥ 1``, elementwise."""

from __future__ import annotations

import numpy as np

from . import condition
from ._ints import clamped, half_up, ints

__all__ = ["scale_index", "run"]


def scale_index(v, s: int, n: int) -> np.ndarray:
    """The index of each ``v``; ``model_mismatch`` for ``s`` outside ``0..127`` or ``n < 1``."""
    condition(0 <= s <= 127, f"shift {s} is not in 0..127")
    condition(n >= 1, f"n = {n} is below 1")
    return clamped(half_up(ints(v), s), 0, n - 1)


def run(inp: dict, modes: dict) -> dict:
    return {"index": int(scale_index([inp["v"]], inp["s"], inp["n"])[0])}
