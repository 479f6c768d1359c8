"""What ``pixel_shuffle`` and ``pixel_unshuffle`` share on TFLite: a ``TRANSPOSE`` of five
axes between two ``RESHAPE``s (``GATHER`` and ``DEPTH_TO_SPACE`` take no int16 on every
kernel path; this does, int8 too: data movement, exact)."""

from __future__ import annotations

import numpy as np

from ..build import TfliteBuilder

__all__ = ["regrouped"]


def _reshaped(b: TfliteBuilder, x: int, shape: list, y: int | None = None) -> int:
    y = b.tensor(shape, b.dtype(x)) if y is None else y
    b.op("RESHAPE", [x, b.tensor([len(shape)], "INT32", np.array(shape, np.int32))], [y])
    return y


def regrouped(b: TfliteBuilder, x: int, five: list, perm: list, y: int) -> int:
    """``x`` reshaped to ``five`` axes, transposed by ``perm``, reshaped into ``y``."""
    t = _reshaped(b, x, five)
    moved = b.tensor([five[k] for k in perm], b.dtype(x))
    b.op("TRANSPOSE", [t, b.tensor([5], "INT32", np.array(perm, np.int32))], [moved])
    return _reshaped(b, moved, b.shapes[y], y)
