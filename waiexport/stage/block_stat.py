"""E6 ``block_stat(x; b, s, lo, hi)`` (§5E): each channel tiled by ``b × b`` blocks from
``(0, 0)`` (the last row and column of blocks may be partial); each block's sum ``S`` over
its positions in the plane, ``clamp(R_half_up(S, s), lo, hi)``, broadcast over the block."""

from __future__ import annotations

import numpy as np

from . import condition
from ._ints import field, half_up, ints

__all__ = ["block_stat", "run"]


def block_stat(x, b: int, s: int, lo: int, hi: int) -> np.ndarray:
    """``x`` ``[C, H, W]`` to its block statistic, of the same shape."""
    condition(b >= 1, f"block size {b} is below 1")
    condition(0 <= s <= 127, f"shift {s} is not in 0..127")
    condition(lo <= hi, f"lo {lo} is above hi {hi}")
    x = ints(x)
    c, h, w = x.shape
    bh, bw = -(-h // b), -(-w // b)
    padded = np.zeros((c, bh * b, bw * b), dtype=x.dtype)
    padded[:, :h, :w] = x
    sums = padded.reshape(c, bh, b, bw, b).sum(axis=(2, 4))
    v = np.clip(half_up(sums, s), lo, hi)
    return np.repeat(np.repeat(v, b, axis=1), b, axis=2)[:, :h, :w]


def run(inp: dict, modes: dict) -> dict:
    out = block_stat(field(inp["x"]), inp["b"], inp["s"], inp["lo"], inp["hi"])
    return {"out": {"data": [int(v) for v in out.reshape(-1)], "shape": list(out.shape)}}
