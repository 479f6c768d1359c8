"""Apache TVM as an engine (extra ``tvm``): a target's ONNX model (the ``ort-cpu`` one unless
``--target`` names another) through TVM's relax ONNX frontend with static shapes per decode,
compiled for this CPU by TVM's ``llvm`` target and cached on disk by the model's digest, the
shapes, TVM's version and the CPU, so a second run compiles nothing. A model the frontend
cannot take (``ConvInteger``, a ``Pad`` whose pads are an input) is declined. A scalar that
places or sizes a crop's window is compiled in as this decode's value (:func:`_frozen`)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import onnx
from onnx import numpy_helper

from waiexport.caches import cpu_key, host_cpu, keep, kept, user_cache

from ..errors import EngineFailure, EngineUnavailable, NotForEngine
from .base import ModelEngine, versions

__all__ = ["TvmEngine"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "tvm-llvm",
        "help": "the tvm-llvm export (or --target's) compiled by Apache TVM for this CPU, "
        "per decode shape, cached (extra tvm)",
        "cls": "TvmEngine",
        "isolated": True,
    },
)


class TvmEngine(ModelEngine):
    """A target's ONNX model compiled by TVM (llvm) per decode shape."""

    name = "tvm-llvm"

    def __init__(self, target_name: str = "tvm-llvm"):
        try:
            import tvm  # noqa: F401
        except ImportError:
            raise EngineUnavailable(
                "Apache TVM is not installed: pip install 'waiexport[tvm]'"
            ) from None
        super().__init__(target_name)
        self.compiled = 0  # compiles this engine ran (the rest came from the cache)
        self._cpu = host_cpu()

    def describe(self) -> dict:
        return {
            "runs_on": f"code TVM's relax ONNX frontend and llvm target compiled for this "
            f"CPU ({self._cpu}), static shapes per decode",
            "packages": versions("apache-tvm", "waiexport", "numpy", "onnx"),
            "probed": self.probed(),
        }

    def open(self, model):
        import tvm
        from tvm import relax

        machines: dict = {}

        sizing = _sizing(model.data)

        def run(feed):
            fixed = {k: v for k, v in feed.items() if k in sizing}
            key = tuple((k, v.shape, v.dtype.str) for k, v in feed.items()) + tuple(
                (k, v.tobytes()) for k, v in fixed.items()
            )
            if key not in machines:
                machines[key] = relax.VirtualMachine(self._library(model, feed, fixed), tvm.cpu())
            try:
                out = machines[key]["main"](
                    *[tvm.runtime.tensor(v) for k, v in feed.items() if k not in fixed]
                )
            except Exception as e:  # TVM's own error types
                raise EngineFailure.said("TVM", e) from None
            outs = list(out) if not hasattr(out, "numpy") else [out]
            return {name: np.asarray(o.numpy()) for name, o in zip(model.outputs, outs)}

        return run

    def _library(self, model, feed, fixed):
        """The compiled module for ``model`` on ``feed``'s shapes with the inputs ``fixed``
        compiled in, from the cache or compiled."""
        import tvm
        from tvm.relax.frontend.onnx import from_onnx

        shapes = {k: list(v.shape) for k, v in feed.items() if k not in fixed}
        key = hashlib.sha256(
            model.data
            + json.dumps(
                [
                    shapes,
                    {k: v.tolist() for k, v in fixed.items()},
                    versions("apache-tvm"),
                    cpu_key(),
                ]
            ).encode()
        ).hexdigest()
        folder = user_cache("tvm")
        path = kept(folder, key, ".so")
        if path is None:
            try:
                proto = _frozen(onnx.load_from_string(model.data), fixed)
                mod = from_onnx(proto, shape_dict=shapes)
                executable = tvm.compile(mod, target="llvm")
            except Exception as e:  # the frontend's OpNotImplemented, TVM's errors
                raise NotForEngine(
                    f"TVM cannot take it: {str(e).strip().splitlines()[-1][:300]}"
                ) from None
            path = keep(folder, key, ".so", lambda part: executable.export_library(str(part)))
            self.compiled += 1
        return tvm.runtime.load_module(str(path))


def _sizing(data: bytes) -> set:
    """The model's inputs a ``Slice``'s starts or ends are computed from: the scalars that
    place or size a crop's window (§5.10)."""
    graph = onnx.load_from_string(data).graph
    made = {o: n for n in graph.node for o in n.output}
    inputs = {i.name for i in graph.input}
    found, todo = set(), [t for n in graph.node if n.op_type == "Slice" for t in n.input[1:3]]
    while todo:
        t = todo.pop()
        if t in inputs:
            found.add(t)
        elif t in made:
            todo.extend(made.pop(t).input)
    return found


def _frozen(proto, fixed: dict):
    """``proto`` with each input of ``fixed`` a constant of its value: TVM's relax frontend
    plans shapes ahead, and after a ``Slice`` whose window is an input it took no operator
    ("emit_te now only supports Tensor that has ShapeExpr shape")."""
    kept_inputs = [i for i in proto.graph.input if i.name not in fixed]
    del proto.graph.input[:]
    proto.graph.input.extend(kept_inputs)
    proto.graph.initializer.extend(
        numpy_helper.from_array(np.asarray(v), k) for k, v in fixed.items()
    )
    return proto
