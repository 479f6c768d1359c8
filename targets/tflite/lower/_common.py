"""What the TFLite lowerings share: their context, an int8 output."""

from __future__ import annotations

from dataclasses import dataclass

from waiexport.graph import Graph, Op

from ...errors import DoesNotFit
from ..build import TfliteBuilder

__all__ = ["TfliteCtx", "int8_out"]


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
    """``op``'s ``k``-th output as an int8 tensor: its certified interval (after its policy)
    must fit int8, and a clamp policy be int8's own ends (the kernels saturate there)."""
    t = op.outputs[k]
    lo, hi = ctx.intervals[t]
    rec = ctx.graph.tensor(t)
    if lo < -128 or hi > 127:
        raise DoesNotFit(
            f"its output takes values in [{lo}, {hi}]: TFLite's int8 tensors hold 8 bits"
        )
    if rec.policy == "clamp" and (rec.lo, rec.hi) != (-128, 127):
        produced = ctx.nodes[op.index].results[k]
        if produced[0] < rec.lo or produced[1] > rec.hi:
            raise DoesNotFit(
                f"a clamp to [{rec.lo}, {rec.hi}]: TFLite's int8 kernels "
                "saturate at [-128, 127] alone here"
            )
    return b.tensor(ctx.nhwc(t))
