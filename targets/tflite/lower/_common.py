"""What the TFLite lowerings share: their context, an int8 output."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from waiexport.graph import Graph, Op

from ...errors import DoesNotFit
from ..build import TfliteBuilder

__all__ = ["TfliteCtx", "int8_out", "clip", "sliced", "zero_padded"]


@dataclass
class TfliteCtx:
    """Every tensor's planned ``(C, H, W)`` shape and certified interval, each operator's
    certified intermediates, the graph."""

    shapes: dict
    intervals: dict
    nodes: dict
    graph: Graph

    def nhwc(self, t: int) -> list:
        c, h, w = self.shapes[t]
        return [1, h, w, c]


def int8_out(b: TfliteBuilder, ctx: TfliteCtx, op: Op, k: int = 0) -> int:
    """``op``'s ``k``-th output as an int8 tensor: its certified interval after its policy
    must fit int8 (the kernels saturate there; a clamp inside it is :func:`clip`'s)."""
    t = op.outputs[k]
    lo, hi = ctx.intervals[t]
    if lo < -128 or hi > 127:
        raise DoesNotFit(
            f"its output takes values in [{lo}, {hi}]: TFLite's int8 tensors hold 8 bits"
        )
    return b.tensor(ctx.nhwc(t))


def clip(b: TfliteBuilder, x: int, lo: int, hi: int) -> int:
    """``clamp(x, lo, hi)`` of an int8 tensor: ``MAXIMUM`` and ``MINIMUM`` with int8 constants,
    each where its bound is inside int8's ends."""
    for code, bound, inside in (("MAXIMUM", lo, lo > -128), ("MINIMUM", hi, hi < 127)):
        if inside:
            y = b.tensor(b.shapes[x])
            b.op(code, [x, b.tensor([1], "INT8", np.array([bound], np.int8))], [y])
            x = y
    return x


def sliced(b: TfliteBuilder, x: int, y: int, begin: list[int]) -> None:
    """``y``, the window of ``x`` from NHWC ``begin`` of ``y``'s size: a ``SLICE``."""
    start = b.tensor([4], "INT32", np.array(begin, np.int32))
    size = b.tensor([4], "INT32", np.array(b.shapes[y], np.int32))
    b.op("SLICE", [x, start, size], [y])


def zero_padded(b: TfliteBuilder, x: int, pads: list) -> int:
    """``x`` with ``pads`` (``[[top, bottom], [left, right]]``) rows and columns of zeros: a
    ``PAD``, or ``x`` itself where every pad is 0."""
    if not any(map(any, pads)):
        return x
    _, h, w, c = b.shapes[x]
    (t, bo), (le, r) = pads
    y = b.tensor([1, h + t + bo, w + le + r, c])
    table = b.tensor([4, 2], "INT32", np.array([[0, 0], [t, bo], [le, r], [0, 0]], np.int32))
    b.op("PAD", [x, table], [y], b.S.PadOptionsT(), "PadOptions")
    return y
