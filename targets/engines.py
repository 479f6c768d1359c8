"""Engines: what runs a graph's decodes. The interface is small, so a user's own engine (an
accelerator's runtime) plugs in the same way.

An engine has a ``name``, the ``profile`` and ``subset`` it implements (§7, §9), and a
``load(data)`` that takes WHG1 bytes and returns a :class:`Loaded` or raises ``Refusal``
(§10.5). ``Loaded.run(inputs, scalars)`` takes every input (state inputs included, in table
order) and the scalar values, and returns the outputs or raises ``Refusal`` (§4).
:meth:`Loaded.sequence` carries state across decodes (§10.3).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from waiexport.graph import Graph
from waiexport.load import load
from waiexport.plan import run_plan
from waiexport.reference import Decoder, apply_policy, decode
from waiexport.reference.arrays import fit

from .descriptions import target

__all__ = ["Loaded", "ReferenceEngine", "OrtEngine", "engine", "run_session"]


@dataclass
class Loaded:
    """A graph an engine has loaded, and how that engine runs one decode of it; ``run_all``,
    when the engine can, returns every tensor of the decode by index (to locate a
    difference)."""

    graph: Graph
    run: Callable
    run_all: Callable | None = None

    def sequence(self) -> Decoder:
        """A fresh sequence of decodes, state starting at each state input's ``init``."""
        return Decoder(self.graph, engine=lambda g, inputs, scalars: self.run(inputs, scalars))


class ReferenceEngine:
    """The exact reference: ``acc64``, all of ``wai-ops/1``."""

    name, profile, subset = "reference", "acc64", "full"

    def load(self, data: bytes) -> Loaded:
        g = load(data, profile=self.profile, subset=self.subset).graph
        return Loaded(g, lambda inputs, scalars: decode(g, inputs, scalars),
                      lambda inputs, scalars: decode(g, inputs, scalars, keep=True))


class OrtEngine:
    """An exported ONNX model on onnxruntime: ``acc32``, ``wai-ops/1-npu``. The host does what
    an accelerator cannot: the load, §4's run steps 1–3 and the input policies of step 4; the
    model computes everything else. Loads are cached by the file's digest."""

    profile, subset = "acc32", "npu"

    def __init__(self, provider: str = "CPUExecutionProvider", target_name: str = "ort-cpu"):
        self.provider = provider
        self.target = target(target_name)
        self.name = target_name if provider == "CPUExecutionProvider" else f"ort:{provider}"
        self._cache: dict = {}

    def load(self, data: bytes) -> Loaded:
        key = hashlib.sha256(data).hexdigest()
        if key not in self._cache:
            import onnxruntime as ort

            from .exporter import export
            from .onnx.export import build_model

            exp = export(data, self.target)
            opts = ort.SessionOptions()
            opts.log_severity_level = 3

            def session(model):
                return ort.InferenceSession(model.SerializeToString(), opts,
                                            providers=[self.provider])
            main = session(exp.model)

            exposed = []   # the model with every tensor an output, built when first asked for

            def run_all(inputs, scalars):
                if not exposed:
                    exposed.append(session(build_model(exp.graph, exp.metadata, expose=True,
                                                       target=self.target)))
                return run_session(exp.graph, exposed[0], inputs, scalars, every=True)
            self._cache[key] = Loaded(exp.graph, lambda i, s: run_session(exp.graph, main, i, s),
                                      run_all)
        return self._cache[key]


def run_session(g: Graph, session, inputs, scalars, every: bool = False):
    """One decode of ``g`` on an onnxruntime session of its exported model: §4's run steps
    1–3 and the input policies on the host (refusals with their codes), the rest in the model.
    With ``every`` (a model built with ``expose``), every tensor by index instead of the
    outputs."""
    run_plan(g, [tuple(np.shape(x)) for x in inputs], [int(s) for s in scalars])
    feed = {}
    counts = {"data": 0, "state": 0}
    for i, (inp, x) in enumerate(zip(g.inputs, inputs)):
        value = apply_policy(fit(x), g.tensor(inp.tensor), f"input {i}")
        feed[f"{'in' if inp.kind == 'data' else 'state'}{counts[inp.kind]}"] = \
            value.astype(np.int32)[None]
        counts[inp.kind] += 1
    for j, s in enumerate(scalars):
        feed[f"scalar{j}"] = np.array([int(s)], dtype=np.int64)
    if every:
        names = [o.name for o in session.get_outputs() if o.name.startswith("tensor")]
        return {int(n[6:]): o[0].astype(np.int64)
                for n, o in zip(names, session.run(names, feed))}
    return [o[0].astype(np.int64) for o in session.run(None, feed)]


def engine(name: str):
    """The engine called ``name``: ``reference``, ``ort-cpu``, ``npu-int8`` (the model
    exported for that unit, on onnxruntime), ``ort:<ExecutionProvider>``,
    or a third party's, registered as an entry point in the group ``waiexport.engines`` whose
    object, called with no arguments, is an engine."""
    if name == "reference":
        return ReferenceEngine()
    if name in ("ort-cpu", "npu-int8"):
        return OrtEngine(target_name=name)
    if name.startswith("ort:"):
        return OrtEngine(provider=name[4:])
    from importlib.metadata import entry_points
    for ep in entry_points(group="waiexport.engines"):
        if ep.name == name:
            return ep.load()()
    raise KeyError(f"unknown engine {name!r}: reference, ort-cpu, ort:<ExecutionProvider>, "
                   "or one registered under the entry point group waiexport.engines")
