"""TFLite's kernels as engines (extra ``tflite``): a target's int8 TFLite model
(``tflm``'s or ``litert``'s, by its arithmetic, unless ``--target`` names another) on one kernel
path, each in a worker:
``tflm``, TensorFlow Lite Micro's interpreter (gemmlowp's requantisation: two roundings, integer
arithmetic); ``litert-ref``, LiteRT's reference kernels (the same arithmetic); ``litert``,
LiteRT's builtin kernels without the default delegate (ruy: two half-up roundings, integer
arithmetic); ``litert-xnnpack``, LiteRT's default, whose XNNPACK delegate requantises in
float32, which §6 forbids on a graph value: its decodes run and are compared, and no vector
passes on it (shared notes, npu-runtimes)."""

from __future__ import annotations

from ..errors import EngineFailure, EngineUnavailable
from .base import ModelEngine, versions

__all__ = ["TfliteEngine", "PATHS"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "tflm",
        "help": "the tflm export (or --target's) on TensorFlow Lite Micro's kernels (extra tflite)",
        "cls": "TfliteEngine",
        "isolated": True,
        "args": {"path": "tflm"},
    },
    {
        "name": "litert",
        "help": "the same on LiteRT's builtin kernels, no default delegate",
        "cls": "TfliteEngine",
        "isolated": True,
        "args": {"path": "litert"},
    },
    {
        "name": "litert-ref",
        "help": "the same on LiteRT's reference kernels",
        "cls": "TfliteEngine",
        "isolated": True,
        "args": {"path": "litert-ref"},
    },
    {
        "name": "litert-xnnpack",
        "help": "the same on LiteRT's default, the XNNPACK delegate "
        "(float32 requantisation: never claimed)",
        "cls": "TfliteEngine",
        "isolated": True,
        "args": {"path": "litert-xnnpack"},
    },
)

#: Each kernel path, in words for the claim.
PATHS = {
    "tflm": "TensorFlow Lite Micro's kernels (gemmlowp requantisation, integer)",
    "litert": "LiteRT's builtin kernels without the default delegate (ruy, integer)",
    "litert-ref": "LiteRT's reference kernels (gemmlowp requantisation, integer)",
    "litert-xnnpack": "LiteRT's default XNNPACK delegate (float32 requantisation)",
}
#: What XNNPACK's requantisation does, for a located difference.
FLOAT32 = "float32 requantisation, exact only while |acc·m| < 2^24 (XNNPACK)"
#: Each path's own target: the one whose arithmetic (gemmlowp's or ruy's) it runs.
DEFAULT = {"tflm": "tflm", "litert-ref": "tflm", "litert": "litert", "litert-xnnpack": "litert"}
#: The most memory TensorFlow Lite Micro's arena may take for one model.
ARENA = 64 << 20


class TfliteEngine(ModelEngine):
    """A target's TFLite model on one kernel path."""

    formats = ("tflite",)

    def __init__(self, target_name: str | None = None, path: str = "tflm"):
        package = "tflite-micro" if path == "tflm" else "ai-edge-litert"
        try:
            if path == "tflm":
                from tflite_micro.python.tflite_micro import runtime
            else:
                from ai_edge_litert import interpreter as runtime
        except ImportError:
            raise EngineUnavailable(
                f"{package} is not installed: pip install 'waiexport[tflite]'"
            ) from None
        super().__init__(target_name or DEFAULT[path])
        self.name, self.path, self.runtime, self.package = path, path, runtime, package

    def describe(self) -> dict:
        return {
            "runs_on": PATHS[self.path] + " on this machine's CPU",
            "device": "CPU",
            "packages": versions(self.package, "waiexport", "numpy"),
            "probed": self.probed(),
        }

    def _load(self, data: bytes):
        loaded = super()._load(data)
        if self.path == "litert-xnnpack":
            loaded.known = {
                op.index: FLOAT32
                for op in loaded.graph.ops
                if getattr(op.params, "rq", None) is not None
            }
            loaded.unclaimable = (
                "LiteRT's XNNPACK delegate requantises in float32, which §6 "
                "forbids on a graph value: validated, never claimed"
            )
        return loaded

    def open(self, model):
        """The model on the kernel path: one interpreter, its inputs and outputs in the
        model's order; its own error is an :class:`EngineFailure`."""
        names, outs = list(model.inputs), list(model.outputs)
        try:
            if self.path == "tflm":
                it = self.runtime.Interpreter.from_bytes(model.data, arena_size=ARENA)

                def run(feed):
                    for k, name in enumerate(names):
                        it.set_input(feed[name], k)
                    it.invoke()
                    return {name: it.get_output(j).copy() for j, name in enumerate(outs)}

                return _guarded(run)
            kinds = self.runtime.OpResolverType
            kind = {
                "litert": kinds.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                "litert-ref": kinds.BUILTIN_REF,
                "litert-xnnpack": kinds.AUTO,
            }[self.path]
            it = self.runtime.Interpreter(
                model_content=model.data, experimental_op_resolver_type=kind
            )
            it.allocate_tensors()
        except Exception as e:  # the runtime's own error, of its own types
            raise EngineFailure.said(self.path, e) from None
        ins = [d["index"] for d in it.get_input_details()]
        got = [d["index"] for d in it.get_output_details()]

        def run(feed):
            for index, name in zip(ins, names):
                it.set_tensor(index, feed[name])
            it.invoke()
            return {name: it.get_tensor(index).copy() for index, name in zip(got, outs)}

        return _guarded(run)


def _guarded(run):
    """``run``, its runtime's errors as :class:`EngineFailure`."""

    def guarded(feed):
        try:
            return run(feed)
        except Exception as e:
            raise EngineFailure.said("TFLite", e) from None

    return guarded
