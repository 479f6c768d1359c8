"""E13 ``coding_order`` (§5E): ``raster`` (channel, then row, then column), or
``checkerboard(anchor)``: the elements with ``(row + col) mod 2 = 0`` when ``anchor`` is set,
the rest otherwise, each in raster order. Indices are CHW positions ``(c·H + y)·W + x``."""

from __future__ import annotations

import numpy as np

from . import condition

__all__ = ["coding_order", "run"]


def coding_order(shape, order: str, anchor: bool = False) -> np.ndarray:
    """The CHW positions of ``shape`` ``[C, H, W]`` in coding order."""
    condition(
        order in ("raster", "checkerboard"), f"order {order!r} is neither raster nor checkerboard"
    )
    condition(
        len(shape) == 3 and all(int(d) >= 0 for d in shape), f"shape {list(shape)} is not [C, H, W]"
    )
    c, h, w = (int(d) for d in shape)
    index = np.arange(c * h * w, dtype=np.int64)
    if order == "raster":
        return index
    y, x = np.indices((h, w)).reshape(2, -1)
    keep = np.tile((y + x) % 2 == (0 if anchor else 1), c)
    return index[keep]


def run(inp: dict, modes: dict) -> dict:
    return {
        "indices": [
            int(i) for i in coding_order(inp["shape"], inp["order"], inp.get("anchor", False))
        ]
    }
