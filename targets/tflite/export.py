"""The TFLite exporter: a graph in ``wai-ops/1-npu`` (after the target's rewrites), on the
shapes of one decode, to a TFLite flatbuffer of integer tensors: inputs ``in0, …`` (and
``state0, …``) and outputs ``out0, …`` NHWC, each graph tensor an int8 tensor holding its
values, or int16 where its certified interval passes int8. Scalars are
the host's (the npu subset's crops are constant). The model's description holds the export's
metadata (the graph's, the rewritten graph's and the certificate's digests) as JSON."""

from __future__ import annotations

import json

from waiexport.bounds import certify_graph
from waiexport.graph import Graph
from waiexport.plan import run_plan

from ..errors import DoesNotFit
from ..lowering import lower_ops
from .build import TfliteBuilder
from .lower import LOWER
from .lower._common import TfliteCtx, clip, type_for

__all__ = ["build_tflite"]


def build_tflite(
    g: Graph,
    shapes: list,
    metadata: dict,
    label=lambda k: f"operator {k}",
    bounds=None,
    expose: int | None = None,
) -> bytes:
    """The TFLite model of ``g`` on these input shapes (``(C, H, W)`` each, in input-table
    order); with ``expose``, its one output is that graph tensor (for locating). Raises
    :class:`~..errors.ExportError` (:class:`~..errors.DoesNotFit` for what no TFLite kernel
    path computes exactly) naming the node by ``label(index)``."""
    gb = bounds or certify_graph(g)
    plan = run_plan(g, list(shapes), [s.lo for s in g.scalars])
    b = TfliteBuilder()
    ctx = TfliteCtx(plan, gb.tensors, {n.op.index: n.result for n in gb.nodes}, g)
    names = {}
    for k, inp in enumerate(g.inputs):
        rec = g.tensor(inp.tensor)
        try:
            dtype = type_for(rec.lo, rec.hi)
        except DoesNotFit as e:
            raise DoesNotFit(f"input {k} {e}") from None
        names[inp.tensor] = str(b.tensor(ctx.nhwc(inp.tensor), dtype))
        b.inputs.append(int(names[inp.tensor]))
    lower_ops(
        g,
        LOWER,
        b,
        ctx,
        names,
        label=label,
        fmt="TFLite",
        clamp=lambda x, rec: str(clip(b, int(x), rec.lo, rec.hi)),
        bounds=gb,
    )
    b.outputs = [int(names[t]) for t in (g.outputs if expose is None else [expose])]
    return b.serialize(json.dumps(metadata, sort_keys=True))
