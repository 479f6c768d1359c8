"""TFLite as a format (:class:`waiexport.targets.format.Format`): a model per decode shape,
NHWC ``[1, H, W, C]`` int8 or int16, self-checked on the target's own runtime (TensorFlow
Lite Micro's kernels, integer arithmetic) where installed."""

from __future__ import annotations

import numpy as np

from ..format import Format, Model, host_feed, input_names
from .build import names, schema
from .export import build_tflite
from .probes import PROBES

__all__ = ["TFLITE", "TfliteFormat"]


class TfliteFormat(Format):
    name, layout, suffix, static, cuts = (
        "tflite",
        "NHWC [1, H, W, C], int8 or int16",
        ".tflite",
        True,
        True,
    )
    judge = ""  # the target's own runtime, named by its description
    checked_on = "tflm"  # TensorFlow Lite Micro's kernels, integer: a board's reference
    probes = PROBES

    def require(self) -> None:
        schema()

    def build(self, exp, shapes) -> Model:
        return _built(exp, shapes, [f"out{j}" for j in range(len(exp.graph.outputs))])

    def prefix(self, exp, t: int, shapes=None) -> Model:
        """The model on ``shapes`` whose one output, ``tensor<t>``, is graph tensor ``t``."""
        return _built(exp, shapes, [f"tensor{t}"], expose=t)

    def feed(self, g, model, inputs, scalars) -> dict:
        return {
            k: np.transpose(v, (0, 2, 3, 1)).astype(model.inputs[k])
            for k, v in host_feed(g, inputs, scalars).items()
            if k in model.inputs
        }

    def chw(self, a):
        return np.transpose(np.asarray(a)[0], (2, 0, 1)).astype(np.int64)

    def shape(self, chw) -> list:
        c, h, w = chw
        return [1, h, w, c]

    def model_of(self, data: bytes, inputs=None, outputs=None, nodes=None) -> Model:
        """A model given as bytes; where its inputs and outputs are not named (a probe's),
        ``in<k>`` and ``out<j>`` by the subgraph's order, of the types it holds."""
        if inputs is None or outputs is None:
            ins, outs = io_types(data)
            inputs = {f"in{k}": t for k, t in enumerate(ins)}
            outputs = {f"out{j}": t for j, t in enumerate(outs)}
        return Model(data, inputs, outputs, None, None)

    def used(self, model) -> set:
        """``(operator, type)`` of each operator ``model`` holds: its builtin's name and its
        output's type (``"int8"``, ``"int16"``)."""
        ops = names("BuiltinOperator")
        m = schema().Model.GetRootAs(model.data, 0)
        sg = m.Subgraphs(0)
        return {
            (
                ops[m.OperatorCodes(o.OpcodeIndex()).BuiltinCode()],
                _type(sg.Tensors(o.Outputs(0)).Type()),
            )
            for o in map(sg.Operators, range(sg.OperatorsLength()))
        }

    def nodes(self, model) -> int:
        S = schema()
        return S.Model.GetRootAs(model.data, 0).Subgraphs(0).OperatorsLength()

    def report(self, exp, model) -> dict:
        return {"metadata": exp.metadata, "nodes": self.nodes(model)}

    def summary(self, exp, model, path, decodes) -> str:
        return f"{path}: {self.nodes(model)} operators, {len(model.data)} bytes, integer TFLite" + (
            f"; self-check: {decodes} decodes bit-exact against the reference" if decodes else ""
        )


def _built(exp, shapes, outputs: list[str], expose: int | None = None) -> Model:
    """``exp``'s TFLite model on ``shapes``, its outputs by these names."""
    data = build_tflite(
        exp.graph,
        list(shapes),
        exp.metadata,
        label=exp.outcome.label,
        bounds=exp.outcome.member.bounds,
        expose=expose,
    )
    ins, outs = io_types(data)
    return Model(
        data, dict(zip(input_names(exp.graph), ins)), dict(zip(outputs, outs)), tuple(shapes), None
    )


def _type(code: int) -> str:
    """A schema tensor type's numpy name (``INT8`` → ``"int8"``)."""
    return names("TensorType")[code].lower()


def io_types(data: bytes) -> tuple[list[str], list[str]]:
    """The numpy type of each input and each output of the model ``data``, in order."""
    sg = schema().Model.GetRootAs(data, 0).Subgraphs(0)
    return (
        [_type(sg.Tensors(sg.Inputs(k)).Type()) for k in range(sg.InputsLength())],
        [_type(sg.Tensors(sg.Outputs(j)).Type()) for j in range(sg.OutputsLength())],
    )


TFLITE = TfliteFormat()
