"""The QDQ exporter: a graph in ``wai-ops/1-npu`` (after the target's rewrites), on the shapes
of one decode, to an ONNX model in QDQ form whose every graph tensor is an 8-bit integer
tensor holding its values (scale 1, zero point 0) and whose every operator is a QDQ pattern
(:mod:`.lower`).

Inputs are named as the ONNX export names them (``in0, …``, ``state0, …``; scalars are the
host's: the npu subset's crops are constant), static ``[1, C, H, W]``; outputs ``out0, …``.
An NPU's execution provider takes static shapes only (onnxruntime's QNN provider refuses a
symbolic one, measured), so a model is built per decode shape."""

from __future__ import annotations

import onnx
from onnx import helper

from waiexport.bounds import certify_graph
from waiexport.graph import Graph
from waiexport.plan import run_plan

from ...format import input_names
from ...lowering import lower_ops
from ..export import packaged
from .check import check_qdq
from .emit import QdqEmitter, storage
from .lower import LOWER
from .lower._common import QdqCtx, clip

__all__ = ["build_qdq"]


def build_qdq(
    g: Graph,
    shapes: list,
    metadata: dict,
    target,
    label=lambda k: f"operator {k}",
    bounds=None,
    expose: int | None = None,
) -> onnx.ModelProto:
    """The QDQ model of ``g`` on these input shapes (``(C, H, W)`` each, in input-table
    order), for ``target`` (its options: exact scales or a generic tool's); with ``expose``,
    its one output is that graph tensor, ``tensor<expose>`` (for locating). Raises
    :class:`~...errors.ExportError` (:class:`~...errors.DoesNotFit` for what the NPU does
    not compute exactly) naming the node by ``label(index)``."""
    gb = bounds or certify_graph(g)
    plan = run_plan(g, list(shapes), [s.lo for s in g.scalars])
    e = QdqEmitter()
    e.target = target
    names, inputs = {}, []
    for inp, name in zip(g.inputs, input_names(g)):
        rec = g.tensor(inp.tensor)
        e.types[name] = storage((rec.lo, rec.hi), f"input {name}")
        names[inp.tensor] = name
        inputs.append(helper.make_tensor_value_info(name, e.types[name], [1, *plan[inp.tensor]]))
    ctx = QdqCtx(
        gb.tensors, [], g, target, {}, {n.op.index: n.result for n in gb.nodes}, shapes=plan
    )
    lower_ops(
        g,
        LOWER,
        e,
        ctx,
        names,
        label=label,
        fmt="QDQ",
        clamp=lambda x, rec: clip(e, x, rec.lo, rec.hi),
        before=lambda op: setattr(e, "scope", f"op{op.index}"),
        bounds=gb,
    )
    e.scope = "model"
    outputs = []
    given = [(f"out{k}", t) for k, t in enumerate(g.outputs)]
    for name, t in given if expose is None else [(f"tensor{expose}", expose)]:
        e.nodes.append(helper.make_node("Identity", [names[t]], [name]))
        outputs.append(helper.make_tensor_value_info(name, e.types[names[t]], [1, *plan[t]]))
    model = packaged(e, inputs, outputs, metadata, opset=13)  # per-axis scales: 13
    check_qdq(model, target.options)
    return model
