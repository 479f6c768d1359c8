"""What the TOSA lowerings share: their context, a slice, a clip, a regrouping of elements."""

from __future__ import annotations

from dataclasses import dataclass, field

from waiexport.graph import Graph

from ...onnx.lower import ExportError
from ..build import I8, I32, TosaBuilder, narrowest

__all__ = ["TosaCtx", "slice_of", "clip", "regroup", "pre_bias", "mac_operands", "ExportError"]


@dataclass
class TosaCtx:
    """What a lowering reads: every tensor's planned shape and certified interval, each
    operator's certified intermediates, the graph."""

    shapes: dict
    intervals: dict
    nodes: dict
    graph: Graph
    scalars: list = field(default_factory=list)  # each scalar's model input

    def nhwc(self, t: int) -> tuple:
        c, h, w = self.shapes[t]
        return (1, h, w, c)

    def interval(self, t: int) -> tuple[int, int]:
        return self.intervals[t]

    def storage(self, t: int) -> str:
        return narrowest(*self.intervals[t])


def slice_of(b: TosaBuilder, x: str, start, size) -> str:
    """SLICE of ``x`` at NHWC ``start`` with NHWC ``size``."""
    return b.op("SLICE", [x, b.shape_of(list(start)), b.shape_of(list(size))], size, b.dtype(x))


def clip(b: TosaBuilder, x: str, lo: int, hi: int) -> str:
    """``clamp(x, lo, hi)`` as int32 MAXIMUM and MINIMUM (TOSA's CLAMP is int8/int16 only);
    a bound past i32 clips nothing an int32 holds."""
    x = b.cast(x, I32)
    lo, hi = max(lo, -(1 << 31)), min(hi, (1 << 31) - 1)
    x = b.op("MAXIMUM", [x, b.const([lo], I32, [1, 1, 1, 1])], b.shape(x), I32, None, b.nan())
    return b.op("MINIMUM", [x, b.const([hi], I32, [1, 1, 1, 1])], b.shape(x), I32, None, b.nan())


def regroup(b: TosaBuilder, x: str, via: tuple, perm: list, out: tuple) -> str:
    """RESHAPE ``x`` to ``via``, TRANSPOSE by ``perm``, RESHAPE to ``out``: a movement of
    elements only, exact in every type."""
    dtype = b.dtype(x)
    six = b.op("RESHAPE", [x, b.shape_of(list(via))], via, dtype)
    moved = b.op("TRANSPOSE", [six], tuple(via[p] for p in perm), dtype, None, list(perm))
    return b.op("RESHAPE", [moved, b.shape_of(list(out))], out, dtype)


def pre_bias(p) -> list[int]:
    """The ``pre`` bias of a convolution's ``rq``, one value per output channel (0 where it
    has none): the MAC operator's own bias operand."""
    bias = [int(v) for v in p.rq.bias] if p.rq.bias_kind == "pre" else [0]
    return bias * p.cout if len(bias) == 1 else bias


def mac_operands(b: TosaBuilder, bias: list[int], op: str) -> tuple[str, str]:
    """A MAC operator's int32 bias operand and its int8 zero point (0, §3 *Storage*); a bias
    past int32 is refused, naming the operator."""
    try:
        return b.const(bias, I32), b.const([0], I8)
    except ValueError:
        raise ExportError(f"a pre bias past int32 for {op}'s bias operand") from None
