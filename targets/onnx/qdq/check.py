"""The QDQ export's check of its own output: floating point only as notation for the NPU's
integer kernels (§6). A float tensor is the output of a ``DequantizeLinear`` of an integer
tensor, or of an operator whose float inputs all are such outputs (or float constants: a
scale, a clip's bounds) and which the target's options list, read only by a
``QuantizeLinear``; the graph's inputs and outputs are integers; for a target that claims
exactness every scale is a power of two."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

from ..emit import graphs
from ..export import ExportError

__all__ = ["check_qdq"]

_FLOATS = {TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16}


def _power_of_two(v: float) -> bool:
    m, _ = np.frexp(np.float64(v))
    return v > 0 and m == 0.5


def check_qdq(model: onnx.ModelProto, options) -> None:
    """Raise :class:`ExportError` where ``model`` is not QDQ as described above."""
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    graph = inferred.graph
    if len(list(graphs(graph))) > 1:
        raise ExportError("a subgraph in a QDQ model")
    types = {v.name: v.type.tensor_type.elem_type for v in graph.value_info}
    inits = {t.name: t for t in graph.initializer}
    types.update({t.name: t.data_type for t in graph.initializer})
    for v in list(graph.input) + list(graph.output):
        if v.type.tensor_type.elem_type in _FLOATS:
            raise ExportError(f"the model's {v.name} is floating point")
    made = {o: n for n in graph.node for o in n.output}
    readers: dict = {}
    for n in graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    for n in graph.node:
        if n.op_type in ("DequantizeLinear", "QuantizeLinear"):
            if options.exact and not all(
                _power_of_two(v) for v in numpy_helper.to_array(inits[n.input[1]]).ravel()
            ):
                raise ExportError(f"{n.name}: a scale that is not a power of two")
            continue
        floats = [i for i in n.input if types.get(i) in _FLOATS]
        if not floats and all(types.get(o) not in _FLOATS for o in n.output):
            continue
        if n.op_type not in options.patterns:
            raise ExportError(
                f"{n.name}: {n.op_type} on floats, outside the QDQ patterns the target lists"
            )
        if any(i not in inits and made[i].op_type != "DequantizeLinear" for i in floats):
            raise ExportError(f"{n.name}: a float input that is not dequantized")
        if any(r.op_type != "QuantizeLinear" for o in n.output for r in readers.get(o, [])):
            raise ExportError(f"{n.name}: a float result read by other than QuantizeLinear")
