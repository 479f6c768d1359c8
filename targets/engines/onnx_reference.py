"""onnx's ``ReferenceEvaluator`` as an engine: a target's ONNX model (the ``ort-cpu`` one
unless ``--target`` names another) on an independent ONNX executor written in numpy, for
cross-checks (about 100 times onnxruntime). Its ``MatMulInteger`` and ``ConvInteger`` sum in
int32 numpy, which would wrap past 2^31: the export splits every integer GEMM so that its
sums fit int32 (from the certificate's ``k_c``), so they never do on our models."""

from __future__ import annotations

from .base import ModelEngine, versions

__all__ = ["OnnxReferenceEngine"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "onnx-reference",
        "help": "a target's ONNX model (ort-cpu's unless --target) on onnx's "
        "ReferenceEvaluator, an independent executor",
        "cls": "OnnxReferenceEngine",
        "isolated": True,
    },
)


class OnnxReferenceEngine(ModelEngine):
    """A target's ONNX model on onnx's ReferenceEvaluator."""

    name = "onnx-reference"

    def __init__(self, target_name: str = "ort-cpu"):
        super().__init__(target_name)

    def describe(self) -> dict:
        return {
            "runs_on": "onnx's ReferenceEvaluator (numpy), an independent ONNX executor",
            "packages": versions("onnx", "waiexport", "numpy"),
            "probed": self.probed(),
        }

    def open(self, model):
        from onnx.reference import ReferenceEvaluator  # 120 ms, where this engine runs

        evaluator = ReferenceEvaluator(model.native)
        names = list(model.outputs)
        return lambda feed: dict(zip(names, evaluator.run(names, feed)))
