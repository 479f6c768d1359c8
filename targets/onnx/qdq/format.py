"""ONNX in QDQ form as a format (:class:`waiexport.targets.format.Format`): a model per decode
shape, NCHW ``[1, C, H, W]`` of 8-bit tensors, for an NPU's execution provider. No runtime here
judges one but the NPU's own: onnxruntime's CPU provider computes a QDQ model in float32
(§6), so an export is self-checked on the target's runtime or not at all, and says which."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from onnx import helper

from ...format import Format, Model, host_feed
from ..format import _Read, _types
from ...errors import DoesNotFit
from .export import build_qdq
from .scales import requant_scales
from .probes import PROBES

__all__ = ["QDQ", "QdqFormat"]


def _built(exp, shapes, expose: int | None = None) -> Model:
    """``exp``'s QDQ model on ``shapes`` (:func:`.export.build_qdq`)."""
    m = build_qdq(
        exp.graph,
        list(shapes),
        exp.metadata,
        exp.target,
        label=exp.outcome.label,
        bounds=exp.outcome.member.bounds,
        expose=expose,
    )
    return Model(
        m.SerializeToString(), _types(m.graph.input), _types(m.graph.output), tuple(shapes), m
    )


class QdqFormat(Format):
    name, layout, suffix, static, cuts = "qdq", "NCHW [1, C, H, W], 8-bit", ".onnx", True, True
    judge = ""  # none here: the CPU provider computes QDQ in float32

    def build(self, exp, shapes) -> Model:
        return _built(exp, shapes)

    def prefix(self, exp, t: int, shapes=None) -> Model:
        """The model on ``shapes`` whose one output, ``tensor<t>``, is graph tensor ``t``."""
        return _built(exp, shapes, expose=t)

    def known(self, exp) -> dict:
        """For a generic export (options not exact), each requantisation the exact scales
        refuse, with why: the HTP computes its float32 scale otherwise."""
        if exp.target.options.exact:
            return {}
        exact, out = replace(exp.target.options, exact=True), {}
        for op in exp.graph.ops:
            rq = getattr(op.params, "rq", None)
            if rq is not None:
                channels = exp.graph.tensor(op.outputs[0]).channels
                try:
                    requant_scales(rq, channels, None, exact)
                except DoesNotFit as e:
                    out[op.index] = f"{e}; {exp.target.name} writes it as a float32 scale"
        return out

    @property
    def probes(self) -> tuple:
        return PROBES

    def used(self, model) -> set:
        """``(operator, type)`` of each QDQ pattern ``model`` holds: its float operator and
        the 8-bit type its result is quantized to."""
        graph = model.native.graph
        types = {t.name: t.data_type for t in graph.initializer}
        readers = {i: n for n in graph.node for i in n.input}
        return {
            (n.op_type, np.dtype(helper.tensor_dtype_to_np_dtype(types[q.input[2]])).name)
            for n in graph.node
            if n.op_type not in ("DequantizeLinear", "QuantizeLinear")
            for q in [readers.get(n.output[0])]
            if q is not None and q.op_type == "QuantizeLinear"
        }

    def feed(self, g, model, inputs, scalars) -> dict:
        return {
            k: v.astype(model.inputs[k])
            for k, v in host_feed(g, inputs, scalars).items()
            if k in model.inputs
        }

    def chw(self, a):
        return np.asarray(a)[0].astype(np.int64)

    def shape(self, chw) -> list:
        return [1, *chw]

    def model_of(
        self,
        data: bytes,
        inputs: dict | None = None,
        outputs: dict | None = None,
        nodes: int | None = None,
    ) -> Model:
        return _Read(data, inputs, outputs, nodes)

    def nodes(self, model) -> int:
        return len(model.native.graph.node)

    def report(self, exp, model) -> dict:
        return {"metadata": exp.metadata, "nodes": self.nodes(model)}

    def summary(self, exp, model, path, decodes) -> str:
        return (
            f"{path}: {self.nodes(model)} nodes, {len(model.data)} bytes, QDQ of 8-bit "
            "tensors"
            + (
                ""
                if exp.target.options.exact
                else ", float32 scales as quantisation tools write them (no claim)"
            )
            + (
                f"; self-check: {decodes} decodes bit-exact against the reference"
                if decodes
                else ""
            )
        )


QDQ = QdqFormat()
