"""What ``pixel_shuffle`` and ``pixel_unshuffle`` share on TFLite: a channel permutation by
``GATHER`` beside the kernel that moves depth to space or back."""

from __future__ import annotations

import numpy as np

from ..build import TfliteBuilder

__all__ = ["gathered", "order"]


def order(c: int, r: int) -> np.ndarray:
    """``k ↦ c·r² + i·r + j`` for ``k = (i·r + j)·C + c``: where §5.10's channel order sits in
    TFLite's depth order (``DEPTH_TO_SPACE`` reads channel ``(i·r + j)·C + c``)."""
    i, j, ch = np.meshgrid(np.arange(r), np.arange(r), np.arange(c), indexing="ij")
    return (ch * r * r + i * r + j).reshape(-1).astype(np.int32)


def gathered(b: TfliteBuilder, x: int, index: np.ndarray, y: int | None = None) -> int:
    """``x``'s channels in the order ``index`` names, ``y[…, k] = x[…, index[k]]``, into
    ``y`` (a new tensor where not given)."""
    S = b.S
    y = b.tensor(b.shapes[x]) if y is None else y
    options = S.GatherOptionsT()
    options.axis, options.batchDims = 3, 0
    b.op("GATHER", [x, b.tensor([len(index)], "INT32", index)], [y], options, "GatherOptions")
    return y
