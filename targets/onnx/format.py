"""ONNX as a format (:class:`waiexport.targets.format.Format`): one model for every decode
shape, NCHW ``[1, C, H, W]`` in the storage type of the graph's tensors (int32, or int64 for
an ``acc64`` target), checked by onnxruntime's CPU provider."""

from __future__ import annotations

import numpy as np
from onnx import helper

from ..format import Format, Model, host_feed

__all__ = ["ONNX", "OnnxFormat", "storage_dtype"]


def storage_dtype(model) -> type:
    """The numpy type of an exported model's graph tensors (int32, or int64 for acc64)."""
    first = next(i for i in model.graph.input if not i.name.startswith("scalar"))
    return helper.tensor_dtype_to_np_dtype(first.type.tensor_type.elem_type).type


def _types(values) -> dict:
    return {v.name: np.dtype(helper.tensor_dtype_to_np_dtype(v.type.tensor_type.elem_type)).name
            for v in values}


class OnnxFormat(Format):
    name, layout, suffix, static = "onnx", "NCHW [1, C, H, W]", ".onnx", False
    judge = "onnxruntime's CPU provider"

    def prepare(self, exp, provider) -> None:
        from . import mac
        from .export import build_model
        exp.model = build_model(exp.graph, exp.metadata, target=exp.target,
                                label=exp.outcome.label,
                                u8s8=None if provider is None else mac.u8s8_exact(provider),
                                bounds=exp.outcome.member.bounds)

    def build(self, exp, shapes=None) -> Model:
        m = exp.model
        return Model(m.SerializeToString(), _types(m.graph.input), _types(m.graph.output), None,
                     m)

    def feed(self, g, model, inputs, scalars) -> dict:
        return host_feed(g, inputs, scalars, storage_dtype(model.native))

    def run(self, model, feed) -> dict:
        import onnxruntime as ort
        session = ort.InferenceSession(model.data, _quiet(ort),
                                       providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs() if not o.name.startswith("tensor")]
        return dict(zip(names, session.run(names, feed)))

    def report(self, exp, model) -> dict:
        return {"metadata": exp.metadata, "nodes": len(model.native.graph.node)}

    def summary(self, exp, model, path, decodes) -> str:
        return (f"{path}: {len(model.native.graph.node)} nodes, {len(model.data)} bytes, "
                f"integer tensors only; self-check: {decodes} decodes bit-exact against the "
                "reference")

    def chw(self, a):
        a = np.asarray(a)
        return a[0] if a.ndim == 4 and a.shape[0] == 1 else a

    def shape(self, chw) -> list:
        return [1, *chw]


def _quiet(ort):
    """Session options that keep onnxruntime's own log lines off the terminal."""
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return opts


ONNX = OnnxFormat()
