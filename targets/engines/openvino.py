"""OpenVINO's CPU plugin as an engine (extra ``openvino``): a target's ONNX model (its own
target ``openvino-cpu``'s unless ``--target`` names another, ``ort-cpu`` say), compiled with
the inference precision set to f32 (it defaults to bf16 on CPUs with AMX or AVX512_BF16).
What OpenVINO says it runs is read from ``compiled_model.get_runtime_model()``: a node it
runs in a floating-point precision means no decode of that model passes, since §6 forbids
floating point on graph values (its decodes still run, to show and locate what differs); the
probes (:mod:`waiexport.targets.onnx.probes`) catch what it computes through float while
reporting an integer type. Each decode feeds the inputs the compiled model kept (OpenVINO
drops one no output reads, a scalar whose ``fill`` is unused say, and refuses a feed that
names it); its runtime's error is that decode's ``EngineFailure``, one line."""

from __future__ import annotations

from ..errors import EngineFailure, EngineUnavailable
from .base import ModelEngine, versions

__all__ = ["OpenVinoEngine", "FLOATING"]

#: OpenVINO's names of the floating-point precisions.
FLOATING = {"f32", "f16", "bf16", "f64", "f8e4m3", "f8e5m2"}
_BOOKKEEPING = {"Input", "Output", "Const", "Parameter", "Result", "Constant"}


class OpenVinoEngine(ModelEngine):
    """A target's ONNX model on OpenVINO's CPU plugin."""

    name = "openvino-cpu"

    def __init__(self, target_name: str = "openvino-cpu"):
        try:
            import openvino as ov
        except ImportError:
            raise EngineUnavailable("OpenVINO is not installed: pip install "
                                    "'waiexport[openvino]'") from None
        super().__init__(target_name)
        self.core = ov.Core()
        self.cpu = self.core.get_property("CPU", "FULL_DEVICE_NAME")

    def describe(self) -> dict:
        return {"runs_on": f"OpenVINO's CPU plugin on {self.cpu}, inference precision f32",
                "device": self.cpu, "packages": versions("openvino", "waiexport", "numpy"),
                "probed": self.probed()}

    def open(self, model):
        compiled = self.core.compile_model(self.core.read_model(model=model.data, weights=b""),
                                           "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        floating = [f"{op.get_friendly_name()} ({info['layerType'].astype(str)})"
                    for op in compiled.get_runtime_model().get_ordered_ops()
                    for info in [op.get_rt_info()]
                    if info["layerType"].astype(str) not in _BOOKKEEPING
                    and info["runtimePrecision"].astype(str) in FLOATING]
        request = compiled.create_infer_request()
        kept = {n for port in compiled.inputs for n in port.get_names()}

        def run(feed):
            try:
                said = request.infer({k: v for k, v in feed.items() if k in kept})
            except RuntimeError as e:
                raise EngineFailure.said("OpenVINO", str(e).strip().splitlines()[-1]) from None
            return {_name(port): value for port, value in said.items()}
        run.floating = [f"OpenVINO runs {len(floating)} node(s) in floating point, which §6 "
                        "forbids on graph values: " + ", ".join(floating[:4])
                        + (", ..." if len(floating) > 4 else "")] if floating else []
        return run


def _name(port) -> str:
    """An output's name as the model gave it, among the names OpenVINO keeps for it."""
    names = port.get_names()
    ours = sorted(n for n in names if n.startswith(("out", "check", "tensor")))
    return ours[0] if ours else port.get_any_name()
