"""tract (Sonos' Rust runtime) as an engine (extra ``tract``): a target's ONNX model (its own
target ``tract``'s unless ``--target`` names another, ``ort-cpu`` say), loaded with concrete
input shapes for each decode shape (with symbolic sizes tract loads fewer of our models) and
each scalar that places or sizes a window bound to its decode's value
(:func:`..onnx.format.bound_scalars`). A
Rust panic aborts the process: tract runs in a worker (:mod:`.worker`), so a panic is that
decode's result."""

from __future__ import annotations

import os
import tempfile

import numpy as np

from ..errors import EngineFailure, EngineUnavailable, NotForEngine
from ..onnx.format import addressing_scalars, bound_scalars, decode_key
from .base import ModelEngine, versions

__all__ = ["TractEngine"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "tract",
        "help": "the tract export (or --target's) on tract, concrete shapes "
        "and scalars per decode (extra tract)",
        "cls": "TractEngine",
        "isolated": True,
        "aborts": True,
    },
)


class TractEngine(ModelEngine):
    """A target's ONNX model on tract, one runnable per decode shape."""

    name = "tract"

    def __init__(self, target_name: str = "tract"):
        try:
            import tract  # noqa: F401
        except ImportError:
            raise EngineUnavailable(
                "tract is not installed: pip install 'waiexport[tract]'"
            ) from None
        super().__init__(target_name)

    def describe(self) -> dict:
        return {
            "runs_on": "tract (Sonos' Rust ONNX runtime), concrete input shapes and scalars "
            "per decode",
            "packages": versions("tract", "waiexport", "numpy"),
            "probed": self.probed(),
        }

    def open(self, model):
        import tract

        runnables: dict = {}
        bound = addressing_scalars(model.data)

        def run(feed):
            key = decode_key(feed, bound)
            if key not in runnables:
                data, fed = bound_scalars(model.data, feed, bound)
                runnables[key] = (*_runnable(tract, data, fed), list(fed))
            names, runnable, fed = runnables[key]
            try:
                out = runnable.run([feed[k] for k in fed])
            except tract.TractError as e:
                raise EngineFailure.said("tract", e) from None
            if len(names) == len(model.outputs):  # tract renames what it folds; the order
                names = list(model.outputs)  # is the model's
            return {n: np.asarray(o.to_numpy()) for n, o in zip(names, out)}

        return run


def _runnable(tract, data: bytes, feed: dict):
    """tract's runnable for one decode shape: the model loaded with each input's concrete
    shape and type, and its outputs' names."""
    with tempfile.NamedTemporaryFile(suffix=".onnx", delete=False) as f:
        f.write(data)
    try:
        loaded = tract.onnx().load(f.name)
        for k, v in enumerate(feed.values()):
            loaded.set_input_fact(k, ",".join(map(str, v.shape)) + f",{_dtype(v)}")
        m = loaded.into_model()
        names = [m.output_name(k) for k in range(m.output_count())]
        return names, m.into_runnable()
    except tract.TractError as e:
        raise NotForEngine(
            f"tract cannot load it: {str(e).strip().splitlines()[0][:300]}"
        ) from None
    finally:
        os.unlink(f.name)


def _dtype(a: np.ndarray) -> str:
    return {
        "int8": "i8",
        "uint8": "u8",
        "int16": "i16",
        "int32": "i32",
        "int64": "i64",
        "uint16": "u16",
        "uint32": "u32",
        "uint64": "u64",
        "bool": "bool",
    }[a.dtype.name]
