"""E6 ``block_stat(x; b, s, lo, hi)`` (§5E): each channel tiled by ``b × b`` blocks from
``(0, 0)`` (the last row and column of blocks may be partial); each block's sum ``S`` over
its positions in the plane, ``clamp(R_half_up(S, s), lo, hi)``, broadcast over the block."""

from __future__ import annotations

import numpy as np

from . import condition
from ._ints import clamped, field, half_up, ints

__all__ = ["block_stat", "run"]


def block_stat(x, b: int, s: int, lo: int, hi: int) -> np.ndarray:
    """``x`` ``[C, H, W]`` to its block statistic, of the same shape (the block sums by
    ``reduceat``, so a block larger than the plane costs nothing)."""
    condition(b >= 1, f"block size {b} is below 1")
    condition(0 <= s <= 127, f"shift {s} is not in 0..127")
    condition(lo <= hi, f"lo {lo} is above hi {hi}")
    x = ints(x)
    c, h, w = x.shape
    if not x.size:
        return x.copy()
    sums = np.add.reduceat(
        np.add.reduceat(x, np.arange(0, h, b), axis=1), np.arange(0, w, b), axis=2
    )
    v = clamped(half_up(sums, s), lo, hi)
    return v[:, np.arange(h) // b][:, :, np.arange(w) // b]


def run(inp: dict, modes: dict) -> dict:
    out = block_stat(field(inp["x"]), inp["b"], inp["s"], inp["lo"], inp["hi"])
    return {"out": {"data": [int(v) for v in out.reshape(-1)], "shape": list(out.shape)}}
