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
from dataclasses import dataclass, field
from importlib import metadata
from typing import Callable

import numpy as np
from waiexport.reference import Decoder

from waiexport.descriptions import target
from waiexport.graph import Graph
from waiexport.jsonio import ascii_text, plain
from waiexport.plan import run_plan
from waiexport.probes import probe_inputs

from ..errors import EngineUnavailable, ExportError, NotForEngine
from ..exporter import export
from ..format import Model, format_of, graph_outputs
from ..outputs import in_order
from ..stored import exported, probe_model

__all__ = ["Engine", "ModelEngine", "Loaded", "versions", "machine", "described"]


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
    unclaimable: str | None = None  # why no decode of it can pass (a failed probe)
    known: dict = field(default_factory=dict)  # operator → what the target's description
    #                                             says its runtime computes otherwise, in words

    def decode(self, inputs, scalars) -> list[np.ndarray]:
        """One decode's outputs in table order, checked (:func:`~..outputs.in_order`)."""
        return in_order(self.graph, self.run(inputs, scalars), inputs, scalars)

    def sequence(self) -> Decoder:
        """A fresh sequence of decodes, state starting at each state input's ``init``."""
        return Decoder(self.graph, engine=lambda g, inputs, scalars: self.decode(inputs, scalars))


def _last_run(runner, feed: dict, runs: int) -> dict:
    """``runner``'s outputs on ``feed`` at the last of ``runs`` runs: a probe whose defect
    shows only when a model runs again (a folded constant written into) runs more than once."""
    for _ in range(runs):
        said = runner(dict(feed))
    return said


def versions(*names: str) -> dict:
    """Each distribution's installed version, or ``not installed``."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def described(said) -> dict:
    """An engine's description (:meth:`Engine.describe`) as a report holds it: its values of
    JSON's types as they are, any other as its text; one that is not a dict says where the
    engine runs."""

    def text(v) -> str:
        return ascii_text(str(v))[:200]

    out = plain(said, "description", other=text)
    return out if type(out) is dict else {"runs_on": text(out)}


def machine() -> str:
    """This machine, in words, for a claim."""
    return f"{platform.machine()} {platform.processor() or platform.platform()}"


class Engine:
    """The base of every engine (see the module's text for the interface)."""

    name = ""
    profile = "acc32"
    subset = "npu"
    target = None  # the target description whose models it runs (None: no model)

    def load(self, data: bytes) -> Loaded:
        raise NotImplementedError

    def describe(self) -> dict:
        """What really runs, for the claim: ``runs_on`` in words and ``packages``."""
        return {"runs_on": "as the engine reports", "packages": "not reported by the engine"}


#: How many loaded graphs a :class:`ModelEngine` keeps, the most recently loaded.
KEPT = 64


class ModelEngine(Engine):
    """An engine that runs ``target_name``'s exported models on a runtime: the export (its
    rewrites and lowerings, cached by the file's digest), the host's part of each decode
    (the load, §4's run steps 1–3 and the input policies), the model on the runtime
    (:meth:`open`, once per model), and the host's checks of its outputs."""

    provider = None  # an onnxruntime provider, for the placement of an ort engine
    formats: tuple = ("onnx",)  # the model formats its runtime reads
    joins_probes = False  # runs its probes in one model (:meth:`probe`): only a runtime that
    # computes each node as it would alone (onnxruntime's CPU kernels);
    # one that compiles a model whole may choose differently for more

    def __init__(self, target_name: str):
        self.target = target(target_name)
        if self.target.fmt not in self.formats or self.target.compiler:
            raise EngineUnavailable(
                f"{self.name or type(self).__name__} runs "
                f"{' or '.join(self.formats)} models; target "
                f"{self.target.name}'s are {self.target.fmt}"
                + (
                    f" compiled by {self.target.compiler.capitalize()}"
                    if self.target.compiler
                    else ""
                )
            )
        self.profile, self.subset = self.target.profile, self.target.subset
        self._cache: dict = {}
        self._probed: dict | None = None

    def probes(self) -> dict:
        """The probes of the target's format, by name."""
        return {p.name: p for p in format_of(self.target).probes}

    def probe_one(self, name: str) -> str | None:
        """One probe run on this runtime: what its wrong answer says, ``None`` where it is
        exact, ``"cannot run it: …"`` where the runtime declines the probe's model."""
        p, fmt = self.probes()[name], format_of(self.target)
        try:
            runner = self.open(probe_model(fmt, p))
            floating = getattr(runner, "floating", [])
            return p.wrong(_last_run(runner, p.feed, p.runs).get("out0")) or (
                f"{p.failure}: {p.op} on {p.dtype}: {floating[0]}" if floating else None
            )
        except NotForEngine as e:
            return f"cannot run it: {e}"
        except Exception as e:  # the runtime's own error: the probe is not exact
            return f"{p.failure}: {p.op} on {p.dtype}: {str(e)[:200]}"

    def probe(self) -> dict:
        """Every probe run once on this runtime, by name (:meth:`probe_one`), where it joins
        them (:attr:`joins_probes`) all in one model first and alone only each not exact
        there; an engine in a worker is given the results its parent gathered probe by probe
        (a runtime that crashes on one crashes that probe alone)."""
        if self._probed is None:
            exact = self._exact_joined() if self.joins_probes else set()
            self._probed = {
                name: None if name in exact else self.probe_one(name) for name in self.probes()
            }
        return self._probed

    def _exact_joined(self) -> set[str]:
        """The probes exact when all run in one model (the format's ``joined``); each
        of the others, or all where the runtime declines that model or says it computes a
        node of it in floating point, runs alone, so what it says is its own run's."""
        probes = tuple(self.probes().values())
        joined = format_of(self.target).joined(probes)
        if len(probes) < 2 or joined is None:
            return set()
        try:
            runner = self.open(probe_model(format_of(self.target), joined))
            if getattr(runner, "floating", []):
                return set()
            return joined.exact(_last_run(runner, joined.feed, joined.runs))
        except Exception:  # NotForEngine, or the runtime's own error: each alone says which
            return set()

    def probed(self) -> str:
        """What the probes found, in words, for the claim."""
        found = self.probe()
        if not found:
            return "no probes for this format"
        wrong = sorted(w for w in found.values() if w and not w.startswith("cannot run"))
        return (
            f"{len(found)} probes of this runtime on the operators and types our models "
            "use: "
            + (
                "all exact"
                if not wrong
                else f"{len(wrong)} wrong ({'; '.join(wrong[:3])}"
                + ("; ..." if len(wrong) > 3 else "")
                + "), so no claim for what "
                "uses them"
            )
            + format_of(self.target).chosen_words(found)
        )

    def open(self, model: Model) -> Callable[[dict], dict]:
        """The runtime's run of ``model``: a function from the model's feed (inputs by
        name, :meth:`~..format.Format.feed`) to its outputs by name. A runtime that says it
        computes a node in floating point lists it in the function's ``floating``: no
        decode of that model can pass (§6)."""
        raise NotImplementedError

    def export(self, data: bytes):
        """The export of ``data`` for the target with the probe's verdict, or the one kept
        on disk from an earlier run (:mod:`..stored`)."""
        found = self.probe()
        chosen = {n: found[n] is None for n in format_of(self.target).choices if n in found}

        def make():
            return export(data, self.target, chosen=chosen)

        return exported(data, self.target, chosen, make)

    def load(self, data: bytes) -> Loaded:
        """``data`` loaded, or the same file's load kept from earlier: the last
        :data:`KEPT` kept, so a run over many graphs holds a few, not all (each holds its
        model and its runtime's session)."""
        key = hashlib.sha256(data).hexdigest()
        if key not in self._cache:
            self._cache[key] = self._load(data)
            while len(self._cache) > KEPT:
                del self._cache[next(iter(self._cache))]
        else:
            self._cache[key] = self._cache.pop(key)  # the most recent last
        return self._cache[key]

    def _load(self, data: bytes) -> Loaded:
        exp = self.export(data)
        fmt, g, opened = exp.format, exp.graph, {}
        wrong = []
        if fmt.static:  # a static model is built at load on the probe's shapes, so a
            probes = probe_inputs(g)  # node it cannot take is found here, not mid-run
            try:
                if probes:
                    wrong = self._wrong_probes(fmt, exp.built([x.shape for x in probes[0][0]]))
            except ExportError as e:
                raise NotForEngine(f"{fmt.name} export refuses it: {e}") from None
        else:  # one model: opened now, so what its runtime says of it counts
            opened[None] = self.open(exp.built())
            wrong = self._wrong_probes(fmt, exp.built()) + list(
                getattr(opened[None], "floating", [])
            )

        def run(inputs, scalars):
            model = exp.built([np.shape(x) for x in inputs])
            feed = fmt.feed(g, model, inputs, scalars)
            self._within_sides(g, inputs, scalars)
            if model.shapes not in opened:
                opened[model.shapes] = self.open(model)
            return graph_outputs(g, fmt, opened[model.shapes](feed))

        loaded = self._loaded(exp, run, opened.get(None))
        if wrong:
            loaded.unclaimable = (
                f"this runtime fails {len(wrong)} check(s) of what the model "
                "uses, so nothing here is claimed: "
                + "; ".join(wrong[:3])
                + ("; ..." if len(wrong) > 3 else "")
            )
        return loaded

    def _within_sides(self, g: Graph, inputs, scalars) -> None:
        """``NotForEngine`` for a decode that forms a tensor with a side past the longest
        the target's runtime computes exactly (its description's ``side_limit``): no claim
        is made for it. The host's refusals (§4) come first."""
        if not self.target.side_limit:
            return
        longest, past = self.target.side_limit
        plan = run_plan(g, [tuple(np.shape(x)) for x in inputs], [int(s) for s in scalars])
        side, t = max((max(shape[1:]), t) for t, shape in plan.items())
        if side > longest:
            op = next((o for o in g.ops if t in o.outputs), None)
            where = f"node {op.index} ({op.name})" if op else "an input"
            raise NotForEngine(
                f"{where}: a tensor side of {side:,} passes {longest:,}, the "
                f"longest on which {self.name} computes exactly; past it {past}"
            )

    def _wrong_probes(self, fmt, model) -> list[str]:
        """What the failed probes of the operators and types ``model`` uses say."""
        found = self.probe()
        failed = [
            p
            for p in fmt.probes
            if p.name not in fmt.choices
            and found.get(p.name)
            and not found[p.name].startswith("cannot run")
        ]
        if not failed:  # the model's operator types are inferred only where it matters
            return []
        used = fmt.used(model)
        return [found[p.name] for p in failed if (p.op, p.dtype) in used]

    def _loaded(self, exp, run, opened) -> Loaded:
        """The :class:`Loaded` of an export whose decode is ``run``, with every tensor by
        index where the format can cut the model after each (each prefix run as the runtime
        runs the whole, so a fused error shows where it arises); a subclass adds what its
        runtime can say more (placement). ``opened``: what :meth:`open` gave for the model
        at load, where its shapes are not static (else ``None``)."""
        fmt, g = exp.format, exp.graph
        if not fmt.cuts:
            return Loaded(g, run, known=fmt.known(exp))

        def run_all(inputs, scalars):
            out = {}
            for t in sorted({t for op in g.ops for t in op.outputs}):
                shapes = [np.shape(x) for x in inputs] if fmt.static else None
                model = fmt.prefix(exp.whole(), t, shapes)
                raw = self.open(model)(fmt.feed(g, model, inputs, scalars))
                out[t] = np.asarray(fmt.chw(raw[f"tensor{t}"])).astype(np.int64)
            return out

        return Loaded(g, run, run_all, known=fmt.known(exp))
