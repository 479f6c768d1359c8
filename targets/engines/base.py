"""What an engine is: the base every engine, built in or a plug-in, subclasses.

An engine has a ``name``, the ``profile`` and ``subset`` it implements (§7, §9), a ``load``
that takes WHG1 bytes and returns a :class:`Loaded` or raises ``Refusal`` (§10.5),
``NotForEngine`` (it cannot run this graph: never a pass) or ``DoesNotFit``, and a
``describe`` that names what really runs (packages, versions, devices) for the claim
``validate`` prints. ``Loaded.run(inputs, scalars)`` takes every input (state inputs
included, in table order) and the scalar values and returns the outputs by name
(:mod:`waiexport.targets.outputs`) or raises ``Refusal`` (§4) or ``EngineFailure`` (the
runtime's own error). An engine that cannot run here at all raises ``EngineUnavailable``
when made.

An engine that implements the stage operators (§5E) defines ``stage(op, inp, modes)``: it
takes a stage vector's ``in`` and ``modes`` as Python values and returns its ``expect`` or
raises :class:`waiexport.reference.stage.StageRefusal` with the code and ``at`` of §14.1.

:class:`ModelEngine` is the base of an engine that runs a target's exported models on a
runtime: it exports (once per file digest), feeds the model what the host computes, and
names the outputs; a subclass says only how its runtime opens a model (:meth:`open`).
"""

from __future__ import annotations

import hashlib
import platform
from dataclasses import dataclass
from importlib import metadata
from typing import Callable

import numpy as np

from waiexport.descriptions import target
from waiexport.graph import Graph
from waiexport.probes import probe_inputs
from waiexport.reference import Decoder

from ..errors import ExportError, NotForEngine
from ..format import Model, graph_outputs
from ..outputs import in_order

__all__ = ["Engine", "ModelEngine", "Loaded", "versions", "machine"]


@dataclass
class Loaded:
    """A graph an engine has loaded, and how that engine runs one decode of it.

    ``run(inputs, scalars)`` returns the decode's outputs by name, each an integer array of
    the shape the graph gives it; :meth:`decode` checks that and returns them in order.
    ``run_all``, when the engine can, returns every tensor of the decode by index (to locate
    a difference); ``inside(op_index, inputs, scalars)`` names the first node inside that
    operator's lowering whose value differs from an independent evaluation of the model;
    ``placement()``, after a run, says how many of the model's nodes ran on which device."""

    graph: Graph
    run: Callable
    run_all: Callable | None = None
    inside: Callable | None = None
    placement: Callable | None = None

    def decode(self, inputs, scalars) -> list[np.ndarray]:
        """One decode's outputs in table order, checked (:func:`~..outputs.in_order`)."""
        return in_order(self.graph, self.run(inputs, scalars), inputs, scalars)

    def sequence(self) -> Decoder:
        """A fresh sequence of decodes, state starting at each state input's ``init``."""
        return Decoder(self.graph, engine=lambda g, inputs, scalars: self.decode(inputs, scalars))


def versions(*names: str) -> dict:
    """Each distribution's installed version, or ``not installed``."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def machine() -> str:
    """This machine, in words, for a claim."""
    return f"{platform.machine()} {platform.processor() or platform.platform()}"


class Engine:
    """The base of every engine (see the module's text for the interface)."""

    name = ""
    profile = "acc32"
    subset = "npu"
    target = None        # the target description whose models it runs (None: no model)

    def load(self, data: bytes) -> Loaded:
        raise NotImplementedError

    def describe(self) -> dict:
        """What really runs, for the claim: ``runs_on`` in words and ``packages``."""
        return {"runs_on": "as the engine reports", "packages": "not reported by the engine"}


class ModelEngine(Engine):
    """An engine that runs ``target_name``'s exported models on a runtime: the export (its
    rewrites and lowerings, cached by the file's digest), the host's part of each decode
    (the load, §4's run steps 1–3 and the input policies), the model on the runtime
    (:meth:`open`, once per model), and the host's checks of its outputs."""

    provider = None      # the onnxruntime provider the export probes kernels on, if any
    formats: tuple = ("onnx",)    # the model formats its runtime reads

    def __init__(self, target_name: str):
        from ..errors import EngineUnavailable
        self.target = target(target_name)
        if self.target.fmt not in self.formats or self.target.vela:
            raise EngineUnavailable(f"{self.name or type(self).__name__} runs "
                                    f"{' or '.join(self.formats)} models; target "
                                    f"{self.target.name}'s are {self.target.fmt}"
                                    + (" compiled by Vela" if self.target.vela else ""))
        self.profile, self.subset = self.target.profile, self.target.subset
        self._cache: dict = {}

    def open(self, model: Model) -> Callable[[dict], dict]:
        """The runtime's run of ``model``: a function from the model's feed (inputs by
        name, :meth:`~..format.Format.feed`) to its outputs by name."""
        raise NotImplementedError

    def export(self, data: bytes):
        from ..exporter import export
        return export(data, self.target, provider=self.provider)

    def load(self, data: bytes) -> Loaded:
        key = hashlib.sha256(data).hexdigest()
        if key not in self._cache:
            self._cache[key] = self._load(data)
        return self._cache[key]

    def _load(self, data: bytes) -> Loaded:
        exp = self.export(data)
        fmt, g, opened = exp.format, exp.graph, {}
        if fmt.static:    # a static model is built at load on the probe's shapes, so a
            probes = probe_inputs(g)     # node it cannot take is found here, not mid-run
            try:
                if probes:
                    exp.built([x.shape for x in probes[0][0]])
            except ExportError as e:
                raise NotForEngine(f"{fmt.name} export refuses it: {e}") from None

        def run(inputs, scalars):
            model = exp.built([np.shape(x) for x in inputs])
            feed = fmt.feed(g, model, inputs, scalars)
            if model.shapes not in opened:
                opened[model.shapes] = self.open(model)
            return graph_outputs(g, fmt, opened[model.shapes](feed))
        return self._loaded(exp, run)

    def _loaded(self, exp, run) -> Loaded:
        """The :class:`Loaded` of an export whose decode is ``run``; a subclass adds what
        its runtime can say more (every tensor, placement)."""
        return Loaded(exp.graph, run)
