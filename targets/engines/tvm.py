"""Apache TVM as an engine (extra ``tvm``): a target's ONNX model (the ``ort-cpu`` one unless
``--target`` names another) through TVM's relax ONNX frontend with static shapes per decode,
compiled for this CPU by TVM's ``llvm`` target and cached on disk by the model's digest, the
shapes, TVM's version and the CPU, so a second run compiles nothing. A model the frontend
cannot take (``ConvInteger``, a ``Pad`` whose pads are an input) is declined."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from waiexport.caches import cpu_key, host_cpu, keep, kept, user_cache

from ..errors import EngineFailure, EngineUnavailable, NotForEngine
from .base import ModelEngine, versions

__all__ = ["TvmEngine"]


class TvmEngine(ModelEngine):
    """A target's ONNX model compiled by TVM (llvm) per decode shape."""

    name = "tvm-llvm"

    def __init__(self, target_name: str = "tvm-llvm"):
        try:
            import tvm  # noqa: F401
        except ImportError:
            raise EngineUnavailable("Apache TVM is not installed: pip install "
                                    "'waiexport[tvm]'") from None
        super().__init__(target_name)
        self.compiled = 0        # compiles this engine ran (the rest came from the cache)
        self._cpu = host_cpu()

    def describe(self) -> dict:
        return {"runs_on": f"code TVM's relax ONNX frontend and llvm target compiled for this "
                           f"CPU ({self._cpu}), static shapes per decode",
                "packages": versions("apache-tvm", "waiexport", "numpy", "onnx"),
                "probed": self.probed()}

    def open(self, model):
        import tvm
        from tvm import relax
        machines: dict = {}

        def run(feed):
            key = tuple((k, v.shape, v.dtype.str) for k, v in feed.items())
            if key not in machines:
                machines[key] = relax.VirtualMachine(self._library(model, feed), tvm.cpu())
            try:
                out = machines[key]["main"](*[tvm.runtime.tensor(v) for v in feed.values()])
            except Exception as e:   # TVM's own error types
                raise EngineFailure.said("TVM", e) from None
            outs = list(out) if not hasattr(out, "numpy") else [out]
            return {name: np.asarray(o.numpy()) for name, o in zip(model.outputs, outs)}
        return run

    def _library(self, model, feed):
        """The compiled module for ``model`` on ``feed``'s shapes, from the cache or compiled."""
        import onnx
        import tvm
        from tvm.relax.frontend.onnx import from_onnx
        shapes = {k: list(v.shape) for k, v in feed.items()}
        key = hashlib.sha256(model.data + json.dumps(
            [shapes, versions("apache-tvm"), cpu_key()]).encode()).hexdigest()
        folder = user_cache("tvm")
        path = kept(folder, key, ".so")
        if path is None:
            try:
                mod = from_onnx(onnx.load_from_string(model.data), shape_dict=shapes)
                executable = tvm.compile(mod, target="llvm")
            except Exception as e:   # the frontend's OpNotImplemented, TVM's errors
                raise NotForEngine(f"TVM cannot take it: {str(e).strip().splitlines()[-1][:300]}") \
                    from None
            path = keep(folder, key, ".so", lambda part: executable.export_library(str(part)))
            self.compiled += 1
        return tvm.runtime.load_module(str(path))
