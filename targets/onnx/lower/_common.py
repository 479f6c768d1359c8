"""What every lowering shares: its context, and the int32 ↔ int64 passage."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import DoesNotFit, ExportError
from ..emit import I32, I64, Emitter

__all__ = ["LowerCtx", "wide", "narrow", "clip", "ExportError", "DoesNotFit"]




@dataclass
class LowerCtx:
    """The certified interval of every tensor, the scalars' model inputs, the graph, the
    target, and the channel permutations folded into producers (tensor → the old channel
    each new channel holds)."""

    intervals: dict
    scalars: list
    graph: object
    target: object = None
    perms: dict = field(default_factory=dict)
    nodes: dict = field(default_factory=dict)   # each operator's certified intermediates

    def range_of(self, t: int) -> tuple[int, int]:
        return self.intervals[t]


def wide(e: Emitter, x: str) -> str:
    """An int32 graph tensor as int64, for arithmetic whose intermediates pass i32."""
    return e.cast(x, I64)


def narrow(e: Emitter, x: str) -> str:
    """An int64 result back to the int32 every graph tensor is stored in (it fits: the graph
    meets ``acc32``)."""
    return e.cast(x, I32)


def clip(e: Emitter, x: str, lo: int, hi: int) -> str:
    """int32 ``Clip`` to ``[lo, hi]``; a bound past i32 becomes i32's end, which clips nothing
    a stored value can hold."""
    lo, hi = max(lo, -(1 << 31)), min(hi, (1 << 31) - 1)
    return e.node("Clip", [x, e.const(lo, I32), e.const(hi, I32)])
