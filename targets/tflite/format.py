"""TFLite int8 as a format (:class:`waiexport.targets.format.Format`): a model per decode
shape, NHWC ``[1, H, W, C]`` int8, self-checked on the target's own runtime (TensorFlow Lite
Micro's kernels, integer arithmetic) where installed."""

from __future__ import annotations

import numpy as np

from ..format import Format, Model, host_feed, input_names
from .build import schema
from .export import build_tflite
from .probes import PROBES

__all__ = ["TFLITE", "TfliteFormat"]


class TfliteFormat(Format):
    name, layout, suffix, static, cuts = "tflite", "NHWC [1, H, W, C], int8", ".tflite", True, True
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
            k: np.transpose(v, (0, 2, 3, 1)).astype(np.int8)
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
        ``in<k>`` and ``out<j>`` by the subgraph's order, int8."""
        if inputs is None or outputs is None:
            sg = schema().Model.GetRootAs(data, 0).Subgraphs(0)
            inputs = {f"in{k}": "int8" for k in range(sg.InputsLength())}
            outputs = {f"out{j}": "int8" for j in range(sg.OutputsLength())}
        return Model(data, inputs, outputs, None, None)

    def used(self, model) -> set:
        """``(operator, "int8")`` of each builtin operator ``model`` holds."""
        S = schema()
        names = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
        m = S.Model.GetRootAs(model.data, 0)
        return {
            (names[m.OperatorCodes(k).BuiltinCode()], "int8")
            for k in range(m.OperatorCodesLength())
        }

    def nodes(self, model) -> int:
        S = schema()
        return S.Model.GetRootAs(model.data, 0).Subgraphs(0).OperatorsLength()

    def report(self, exp, model) -> dict:
        return {"metadata": exp.metadata, "nodes": self.nodes(model)}

    def summary(self, exp, model, path, decodes) -> str:
        return f"{path}: {self.nodes(model)} operators, {len(model.data)} bytes, int8 TFLite" + (
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
    return Model(
        data,
        dict.fromkeys(input_names(exp.graph), "int8"),
        dict.fromkeys(outputs, "int8"),
        tuple(shapes),
        None,
    )


TFLITE = TfliteFormat()
