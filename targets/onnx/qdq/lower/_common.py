"""What the QDQ lowerings share: their context, each output's 8-bit type, a clip."""

from __future__ import annotations

from dataclasses import dataclass, field

from waiexport.graph import Op

from ...lower._common import LowerCtx
from ....errors import DoesNotFit
from ..emit import WINDOW, QdqEmitter, storage

__all__ = ["QdqCtx", "out_type", "clip"]


@dataclass
class QdqCtx(LowerCtx):
    """An ONNX lowering's context (:class:`~...lower._common.LowerCtx`) with every tensor's
    planned ``(C, H, W)`` shape: a QDQ model's shapes are static."""

    shapes: dict = field(default_factory=dict)


def out_type(ctx: QdqCtx, op: Op, k: int = 0) -> int:
    """The 8-bit type of ``op``'s ``k``-th output, from its certified interval."""
    return storage(ctx.range_of(op.outputs[k]), "its output")


def clip(e: QdqEmitter, x: str, lo: int, hi: int) -> str:
    """``clamp(x, lo, hi)`` of a quantized ``x``: nothing where its type's window is those
    bounds (its QuantizeLinear saturated it), else a QDQ ``Clip``."""
    dtype = e.types[x]
    if WINDOW[dtype] == (lo, hi):
        return x
    lo, hi = max(lo, WINDOW[dtype][0]), min(hi, WINDOW[dtype][1])
    if lo >= hi:
        raise DoesNotFit(
            f"a clamp to the one value {lo}: the NPU's Clip fails on it (its "
            "limits must differ, measured)"
        )
    return e.pattern("Clip", [x], dtype, [e.scale(lo), e.scale(hi)])
