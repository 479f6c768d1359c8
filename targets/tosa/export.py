"""The TOSA exporter: a graph in ``wai-ops/1-npu`` (after the target's rewrites), on the
shapes of one decode, to a TOSA 1.0 flatbuffer of integer tensors only (PRO-INT).

Shapes are static in TOSA, so a model is built per decode shape. Each graph tensor is stored
in the narrowest type its certified interval allows (int8, int16 or int32) and cast where an
operator needs another (a cast of a value the certificate proves fits never wraps); the
model's inputs are the graph's inputs in table order (state inputs included: a state is an
input and an output, carried by the host, §10.3), in their storage types, NHWC, then each
scalar as an int32 ``[1, 1, 1, 1]``; its outputs the graph's outputs likewise. The host
makes the load, §4's run steps 1–3 and the input policies, as for every engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from waiexport.bounds import certify_graph
from waiexport.graph import Graph
from waiexport.plan import run_plan

from ..lowering import lower_ops
from .build import I32, TosaBuilder
from .lower import LOWER
from .lower._common import TosaCtx, clip

__all__ = ["TosaModel", "build_tosa", "operator_names"]


@dataclass
class TosaModel:
    """A flatbuffer with its inputs' and outputs' ``(NHWC shape, dtype)``."""

    data: bytes
    inputs: list
    outputs: list


def build_tosa(
    g: Graph, shapes: list, scalars: list | tuple = (), label=lambda k: f"operator {k}", bounds=None
) -> TosaModel:
    """The TOSA model of ``g`` on these input shapes (``(C, H, W)`` each, state inputs
    included). Raises :class:`ExportError` naming the node (``label(index)``), the feature
    and why where TOSA has no exact form for it. ``bounds`` is the bounds pass over ``g``
    where the caller has it."""
    gb = bounds or certify_graph(g)
    b = TosaBuilder()
    ctx = TosaCtx(
        run_plan(g, shapes, list(scalars) or [s.lo for s in g.scalars]),
        gb.tensors,
        {n.op.index: n.result for n in gb.nodes},
        g,
    )
    names = {i.tensor: b.input(ctx.nhwc(i.tensor), ctx.storage(i.tensor)) for i in g.inputs}
    ctx.scalars = [b.input((1, 1, 1, 1), I32) for _ in g.scalars]
    lower_ops(
        g,
        LOWER,
        b,
        ctx,
        names,
        label=label,
        fmt="TOSA",
        clamp=lambda x, rec: clip(b, x, rec.lo, rec.hi),
        store=lambda t, x: b.cast(x, ctx.storage(t)),
        bounds=gb,
    )
    for t in g.outputs:
        b.output(names[t])
    return TosaModel(b.serialize(), b.inputs, b.outputs)


def operator_names(data: bytes) -> list[str]:
    """The names of a TOSA flatbuffer's operators, in order, read back from its bytes (its
    one region's one block, as :func:`build_tosa` writes it)."""
    from tosa.Op import Op
    from tosa.TosaGraph import TosaGraph

    names = {v: k for k, v in vars(Op).items() if not k.startswith("_")}
    block = TosaGraph.GetRootAsTosaGraph(data, 0).Regions(0).Blocks(0)
    return [names[block.Operators(i).Op()] for i in range(block.OperatorsLength())]
