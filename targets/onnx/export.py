"""The ONNX exporter: a graph in ``wai-ops/1-npu`` to a model of integer tensors only, on
operators onnxruntime's CPU provider runs with integer kernels (opset 21).

Model inputs are named after the WHG1 tables: data inputs ``in0, in1, …``, state inputs
``state0, …`` (``[1, C, H, W]``, a data input int8 or uint8 where its declared range fits
one, :func:`_fed_as`, else the graph's storage type), scalars ``scalar0, …`` (int64
``[1]``); outputs are ``out0, out1, …``. A state output feeds its state input back by the
§10.2 ``src`` link, which the host carries. Input policies, sizes and scalar ranges are the
host's (§4 run steps 1–3); every operator and every ``clamp`` policy inside the graph is in
the model.
"""

from __future__ import annotations

import hashlib

import numpy as np
import onnx
from onnx import TensorProto, helper

from waiexport import __version__
from waiexport.bounds import certify_graph
from waiexport.descriptions import DCR
from waiexport.graph import Graph

from ..lowering import lower_ops
from ..format import input_names
from .emit import I8, I32, I64, U8, Emitter, fits_i8, graphs, subgraph_nodes
from .lower import LOWER, WIDE, DoesNotFit, ExportError, LowerCtx
from .lower._common import clamped, phase_major, shuffled_alone
from .sink import sunk

__all__ = [
    "build_model",
    "every_node_model",
    "OPSET",
    "lowest_opset",
    "check_integer_only",
    "packaged",
    "ExportError",
    "DoesNotFit",
]

OPSET = 21
_FLOATS = {TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16}


def _fed_as(kind: str, lo: int, hi: int, storage: int) -> int:
    """The type a graph input of ``kind`` with declared range ``[lo, hi]`` is fed as: a data
    input int8 or uint8 where one holds the range (the host applies the input's policy
    before it feeds, §4 run step 1, so every fed value lies in it), so an 8-bit GEMM operand
    needs no narrowing pass over it (0.3 of 11.3 ms on the conv 3×3 of
    ``benchmarks/float_peer.py``, measured); else ``storage``, the type of the state output
    the host feeds back to a state input (§10.3)."""
    if kind != "data":
        return storage
    return I8 if fits_i8((lo, hi)) else U8 if 0 <= lo and hi <= 255 else storage


def _operator(k: int) -> str:
    return f"operator {k}"


def _fold_depth_to_space(g: Graph, label=_operator) -> dict:
    """For a target whose depth-to-space reads ``(i·r + j)·C′ + c``: the permutation of each
    ``pixel_shuffle`` input's channels, folded into the ``conv`` that produces it (§9.4).
    Raises :class:`DoesNotFit` where no such producer can take it."""
    perms = {}
    for op in g.ops:
        if op.name != "pixel_shuffle":
            continue
        t, r = op.inputs[0], op.params.r
        producer = g.producer(t)
        if producer is None or g.op(producer).name != "conv" or shuffled_alone(g, t) is None:
            raise DoesNotFit(
                f"{label(op.index)} (pixel_shuffle): its input is not a conv's "
                "output read by it alone, so the channel order cannot be folded"
            )
        perms[t] = phase_major(g.tensor(t).channels, r)
    return perms


def build_model(
    g: Graph,
    metadata: dict,
    expose: bool = False,
    target=None,
    label=_operator,
    u8s8: bool | None = None,
    bounds=None,
) -> onnx.ModelProto:
    """The ONNX model of ``g``, a graph that meets ``acc32`` and lies in ``wai-ops/1-npu``
    (after the target's rewrites). With ``expose``, every graph tensor ``t`` is also an output
    ``tensor<t>`` (for locating a difference). ``u8s8`` is the u8×s8 kernel probe's verdict
    on the provider the model will run on (the CPU's when None); ``bounds`` is the bounds pass
    over ``g`` where the caller has it. Raises :class:`ExportError` for an operator it cannot
    map, naming the node by ``label(index)``."""
    gb = bounds or certify_graph(g)
    e = Emitter()
    e.storage = I64 if target is not None and target.profile == "acc64" else I32
    e.target = target
    names = {}
    inputs = []
    for inp, name in zip(g.inputs, input_names(g)):
        rec = g.tensor(inp.tensor)
        fed = _fed_as(inp.kind, rec.lo, rec.hi, e.storage)
        names[inp.tensor] = name if fed == e.storage else e.widen(name, fed, e.storage)
        inputs.append(
            helper.make_tensor_value_info(name, fed, [1, rec.channels, f"{name}_h", f"{name}_w"])
        )
    scalars = [f"scalar{j}" for j in range(len(g.scalars))]
    inputs += [helper.make_tensor_value_info(s, I64, [1]) for s in scalars]
    perms = (
        _fold_depth_to_space(g, label)
        if target is not None and target.depth_to_space == DCR
        else {}
    )
    ctx = LowerCtx(
        gb.tensors, scalars, g, target, perms, {n.op.index: n.result for n in gb.nodes}, u8s8
    )
    checks = [] if e.storage == I64 else None
    for n in gb.nodes if e.storage == I64 else ():
        past = sorted(
            k
            for k, (lo, hi) in n.result.intermediates.items()
            if (lo < -(1 << 63) or hi >= 1 << 63) and k not in WIDE
        )
        if past:
            raise ExportError(
                f"{label(n.op.index)} ({n.op.name}): {', '.join(past)} pass 64 "
                "bits, and this lowering forms them in int64"
            )
    lower_ops(
        g,
        LOWER,
        e,
        ctx,
        names,
        label=label,
        fmt="ONNX",
        clamp=lambda x, rec: clamped(e, x, rec.lo, rec.hi),
        before=lambda op: setattr(e, "scope", f"op{op.index}"),
        checks=checks,
        bounds=gb,
    )
    e.scope = "model"

    def graph_order(t: int, x: str) -> str:  # a tensor whose channels a fold reordered
        return (
            x
            if t not in perms
            else e.node("Gather", [x, e.const(np.argsort(perms[t]), I64)], axis=1)
        )

    given = (
        [(f"out{k}", t, names[t]) for k, t in enumerate(g.outputs)]
        + [(f"check{t}", t, x) for t, x in checks or []]
        + [(f"tensor{t}", t, names[t]) for t in sorted(names) if expose]
    )
    outputs = []  # the graph's; the host checks the acc64 ``check`` ones after the run; with
    for name, t, x in given:  # ``expose``, every tensor's
        e.nodes.append(helper.make_node("Identity", [graph_order(t, x)], [name]))
        outputs.append(
            helper.make_tensor_value_info(name, e.storage, [1, g.tensor(t).channels, None, None])
        )
    if target is not None and target.options.spread_scalars:
        e.spread_scalars()
    model = packaged(e, inputs, outputs, metadata, finish=sunk)
    check_integer_only(model)
    return model


def packaged(
    e: Emitter,
    inputs: list,
    outputs: list,
    metadata: dict,
    opset: int = 1,
    finish=lambda model: model,
) -> onnx.ModelProto:
    """The model of what ``e`` emitted for ``outputs`` (what no output reads pruned), at the
    lowest opset its operators allow (``opset`` at least), ``finish`` applied, the export's
    ``metadata`` added, checked by onnx's checker."""
    e.pruned([o.name for o in outputs])
    graph = helper.make_graph(e.nodes, "wai-ops", inputs, outputs, e.inits)
    opsets = [helper.make_opsetid("", max(lowest_opset(e.nodes), opset))]
    model = finish(
        helper.make_model(
            graph,
            opset_imports=opsets,
            producer_name="waiexport",
            producer_version=__version__,
            ir_version=helper.find_min_ir_version_for(opsets),
        )
    )
    for key, value in sorted(metadata.items()):
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model, full_check=True)
    return model


def every_node_model(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with every node's outputs also outputs of the graph (their types inferred),
    for comparing one runtime's node values with another's."""
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    types = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info}
    out = onnx.ModelProto()
    out.CopyFrom(model)
    have = {o.name for o in out.graph.output}
    for node in out.graph.node:
        for name in node.output:
            if name not in have and name in types:
                out.graph.output.append(helper.make_tensor_value_info(name, types[name], None))
    return out


def lowest_opset(nodes) -> int:
    """The lowest opset whose definition of every operator in ``nodes`` is the one of
    :data:`OPSET` the lowerings were written for, so older runtimes load the model."""
    return max(
        onnx.defs.get_schema(n.op_type, OPSET, "").since_version for n in subgraph_nodes(nodes)
    )


def check_integer_only(model: onnx.ModelProto) -> None:
    """Raise ``ExportError`` if any initializer, value or node of ``model`` (its ``If``
    branches' too) is floating point (§6): every input, output, initializer and inferred
    intermediate is an integer or bool."""
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    for g in graphs(inferred.graph):
        for t in g.initializer:
            if t.data_type in _FLOATS:
                raise ExportError(f"initializer {t.name} is floating point")
        for v in list(g.input) + list(g.output) + list(g.value_info):
            if v.type.tensor_type.elem_type in _FLOATS:
                raise ExportError(f"tensor {v.name} is floating point")
        for node in g.node:
            for a in node.attribute:
                if (
                    a.type
                    in (
                        onnx.AttributeProto.FLOAT,
                        onnx.AttributeProto.FLOATS,
                        onnx.AttributeProto.TENSOR,
                    )
                    and a.name != "value"
                ):
                    raise ExportError(f"node {node.name or node.op_type} has a float attribute")
            if node.op_type == "Cast" and any(
                a.name == "to" and a.i in _FLOATS for a in node.attribute
            ):
                raise ExportError("a Cast to floating point")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
