"""OpenVINO's CPU plugin as an engine (extra ``openvino``): a target's ONNX model (its own
target ``openvino-cpu``'s unless ``--target`` names another, ``ort-cpu`` say), compiled with
the inference precision set to f32 (it defaults to bf16 on CPUs with AMX or AVX512_BF16),
and each decode run on the model compiled for its input shapes (kept for the next decode of
those shapes; see :meth:`OpenVinoEngine.open`). What OpenVINO says it runs is read from
``compiled_model.get_runtime_model()``: a node it runs in a floating-point precision means no
decode of that model passes, since §6 forbids floating point on graph values (its decodes
still run, to show and locate what differs); the probes
(:mod:`waiexport.targets.onnx.probes`) catch what it computes through float while reporting
an integer type. Each decode feeds the inputs the compiled model kept (OpenVINO drops one no
output reads, a scalar whose ``fill`` is unused say, and refuses a feed that names it); its
runtime's error is that decode's ``EngineFailure``, one line."""

from __future__ import annotations

from ..errors import EngineFailure, EngineUnavailable
from ..onnx.format import addressing_scalars, bound_scalars, decode_key
from .base import ModelEngine, versions

__all__ = ["OpenVinoEngine", "FLOATING"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "openvino-cpu",
        "help": "the openvino-cpu export (or --target's) on OpenVINO's CPU plugin, f32 "
        "inference precision (extra openvino)",
        "cls": "OpenVinoEngine",
        "isolated": True,
    },
)

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
            raise EngineUnavailable(
                "OpenVINO is not installed: pip install 'waiexport[openvino]'"
            ) from None
        super().__init__(target_name)
        self.core = ov.Core()
        self.cpu = self.core.get_property("CPU", "FULL_DEVICE_NAME")

    def describe(self) -> dict:
        return {
            "runs_on": f"OpenVINO's CPU plugin on {self.cpu}, inference precision f32",
            "device": self.cpu,
            "packages": versions("openvino", "waiexport", "numpy"),
            "probed": self.probed(),
        }

    def open(self, model):
        """The model compiled as it is, where what OpenVINO runs in floating point is read,
        and compiled again with each decode's input shapes and scalars fixed
        (:func:`..onnx.format.bound_scalars`), on which that decode runs (a node in floating
        point there that was not in the first fails it). On dynamic shapes OpenVINO's sizes
        went wrong: a reshape read a side of 1 where it was 7 (the interleave of a k4 s4
        ``conv_transpose``, every decode failed), a 1x1 conv of side 2^24 + 1 computed its
        last column wrong, and a side of 6 was padded to 6, not 8, after a crop whose width
        is a scalar; on fixed shapes and scalars all are exact (measured)."""
        compiled = self._compiled(self.core.read_model(model=model.data, weights=b""))
        floating = _floating(compiled)
        kept = {n for port in compiled.inputs for n in port.get_names()}
        fixed: dict = {}
        bound = addressing_scalars(model.data)

        def run(feed):
            feed = {k: v for k, v in feed.items() if k in kept}
            key = decode_key(feed, bound)
            try:
                if key not in fixed:
                    data, fed = bound_scalars(model.data, feed, bound)
                    m = self.core.read_model(model=data, weights=b"")
                    m.reshape({k: list(v.shape) for k, v in fed.items()})
                    at_shapes = self._compiled(m)
                    new = [] if floating else _floating(at_shapes)
                    if new:
                        raise EngineFailure(
                            f"OpenVINO runs {new[0]} in floating point at these input shapes (§6)"
                        )
                    fixed[key] = at_shapes.create_infer_request(), list(fed)
                request, names = fixed[key]
                said = request.infer({k: feed[k] for k in names})
            except RuntimeError as e:
                raise EngineFailure.said("OpenVINO", str(e).strip().splitlines()[-1]) from None
            return {_name(port): value for port, value in said.items()}

        run.floating = (
            [
                f"OpenVINO runs {len(floating)} node(s) in floating point, which §6 "
                "forbids on graph values: "
                + ", ".join(floating[:4])
                + (", ..." if len(floating) > 4 else "")
            ]
            if floating
            else []
        )
        return run

    def _compiled(self, model):
        return self.core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


def _floating(compiled) -> list[str]:
    """The nodes ``compiled`` runs in a floating-point precision, by name and kind."""
    return [
        f"{op.get_friendly_name()} ({info['layerType'].astype(str)})"
        for op in compiled.get_runtime_model().get_ordered_ops()
        for info in [op.get_rt_info()]
        if info["layerType"].astype(str) not in _BOOKKEEPING
        and info["runtimePrecision"].astype(str) in FLOATING
    ]


def _name(port) -> str:
    """An output's name as the model gave it, among the names OpenVINO keeps for it."""
    names = port.get_names()
    ours = sorted(n for n in names if n.startswith(("out", "check", "tensor")))
    return ours[0] if ours else port.get_any_name()
