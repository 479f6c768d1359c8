"""What the TFLite lowerings share: their context, each tensor's integer type (int8 where its
certified interval fits, else int16), operands cast to one type, clamps, slices, padding."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from waiexport.graph import Graph, Op

from ...errors import DoesNotFit
from ..build import TfliteBuilder

__all__ = [
    "TYPES",
    "TfliteCtx",
    "type_for",
    "widened",
    "out",
    "operands",
    "clip",
    "sliced",
    "zero_padded",
]

#: TFLite's integer activation types, narrowest first, with the values each holds.
TYPES = {"INT8": (-128, 127), "INT16": (-32768, 32767)}


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


def type_for(lo: int, hi: int, at_least: str = "INT8") -> str:
    """The narrowest of :data:`TYPES`, no narrower than ``at_least``, that holds
    ``[lo, hi]``; :class:`DoesNotFit` where none does."""
    names = list(TYPES)
    for name in names[names.index(at_least) :]:
        if TYPES[name][0] <= lo and hi <= TYPES[name][1]:
            return name
    raise DoesNotFit(f"takes values in [{lo}, {hi}]: TFLite's integer tensors hold 16 bits")


def widened(b: TfliteBuilder, x: int, to: str) -> int:
    """``x`` as ``to`` where it is narrower: a ``QUANTIZE`` from scale 1 to scale 1, which
    every path computes exactly (every int8 is an int16; the 16×8 probe runs it), and which
    Vela places on the NPU, where it places a ``CAST`` on the CPU."""
    if list(TYPES).index(b.dtype(x)) >= list(TYPES).index(to):
        return x
    y = b.tensor(b.shapes[x], to)
    b.op("QUANTIZE", [x], [y])
    return y


def out(b: TfliteBuilder, ctx: TfliteCtx, op: Op, k: int = 0, at_least: str = "INT8") -> int:
    """``op``'s ``k``-th output tensor, of the type its certified interval after its policy
    needs (the kernels saturate at the type's ends; a clamp inside it is :func:`clip`'s)."""
    t = op.outputs[k]
    try:
        return b.tensor(ctx.nhwc(t), type_for(*ctx.intervals[t], at_least))
    except DoesNotFit as e:
        raise DoesNotFit(f"its output {e}") from None


def operands(b: TfliteBuilder, ctx: TfliteCtx, op: Op, ins) -> tuple[list[int], int]:
    """``op``'s inputs and its first output in one type, the widest that any of them needs
    (a kernel of data movement or elementwise arithmetic takes one type throughout)."""
    lo, hi = ctx.intervals[op.outputs[0]]
    names = list(TYPES)
    widest = max([names.index(b.dtype(int(x))) for x in ins] + [names.index(type_for(lo, hi))])
    y = out(b, ctx, op, at_least=names[widest])
    return [widened(b, int(x), b.dtype(y)) for x in ins], y


def clip(b: TfliteBuilder, x: int, lo: int, hi: int) -> int:
    """``clamp(x, lo, hi)`` of an integer tensor: ``MAXIMUM`` and ``MINIMUM`` with constants of
    its type, each where its bound is inside the type's ends."""
    dtype = b.dtype(x)
    low, high = TYPES[dtype]
    for code, bound, inside in (("MAXIMUM", lo, lo > low), ("MINIMUM", hi, hi < high)):
        if inside:
            y = b.tensor(b.shapes[x], dtype)
            const = np.array([bound], dtype.lower())
            b.op(code, [x, b.tensor([1], dtype, const)], [y])
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
    y = b.tensor([1, h + t + bo, w + le + r, c], b.dtype(x))
    table = b.tensor([4, 2], "INT32", np.array([[0, 0], [t, bo], [le, r], [0, 0]], np.int32))
    b.op("PAD", [x, table], [y], b.S.PadOptionsT(), "PadOptions")
    return y
