"""E4 ``coded(v, thr) = v > thr`` (§5E): a position that is not coded consumes no symbol."""

from __future__ import annotations

import numpy as np

from ._ints import ints

__all__ = ["coded", "run"]


def coded(v, thr: int) -> np.ndarray:
    """``v > thr`` elementwise, as booleans."""
    return np.asarray(ints(v) > thr, dtype=bool)


def run(inp: dict, modes: dict) -> dict:
    return {"coded": bool(coded([inp["v"]], inp["thr"])[0])}
