"""onnxruntime as an engine: a target's ONNX model (``ort-cpu``, ``npu-int8``,
``ort-cpu-acc64``) on one execution provider, the CPU's or another with CPU fallback
disabled; the host does what an accelerator cannot (the load, §4's run steps 1–3, the input
policies, the checks of an acc64 model's internal ``check`` tensors)."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from importlib import metadata
from typing import Callable

import numpy as np

from waiexport.graph import Graph

from ..errors import EngineFailure, EngineUnavailable, NotForEngine
from ..format import graph_outputs, host_feed
from ..onnx.format import ONNX, CpuSession, ort_failure, quiet
from .base import Loaded, ModelEngine, versions

__all__ = ["OrtEngine", "OrtRuntime", "OrtSession", "run_session", "CPU"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "ort-cpu",
        "help": "the ort-cpu export on onnxruntime's CPU provider (acc32, wai-ops/1-npu)",
        "cls": "OrtEngine",
        "args": {"target_name": "ort-cpu"},
    },
    {
        "name": "npu-int8",
        "help": "the npu-int8 export (the strict unit's model) on onnxruntime's CPU provider",
        "cls": "OrtEngine",
        "args": {"target_name": "npu-int8"},
    },
    {
        "name": "ort-cpu-acc64",
        "help": "the acc64 export on onnxruntime's CPU provider (acc64, all "
        "of wai-ops/1: int64 tensors, 128-bit values from int64 "
        "limbs)",
        "cls": "OrtEngine",
        "args": {"target_name": "ort-cpu-acc64"},
    },
    {
        "name": "ort:<Provider>",
        "help": "the ort-cpu export on another onnxruntime execution "
        "provider, CPU fallback disabled",
        "cls": "OrtEngine",
        "args": {"target_name": "ort-cpu"},
    },
    {
        "name": "ort-acc64:<Provider>",
        "help": "the acc64 export on another onnxruntime execution provider, CPU fallback disabled",
        "cls": "OrtEngine",
        "args": {"target_name": "ort-cpu-acc64"},
    },
)

CPU = "CPUExecutionProvider"


class OrtSession:
    """One onnxruntime session on one provider. With ``profiled``, the first run is profiled
    and :meth:`placement` then reads from onnxruntime's profile which provider ran each node."""

    def __init__(self, model: bytes, provider: str, fallback: bool, profiled: bool):
        import onnxruntime as ort

        self._dir = None
        providers = [provider, CPU] if fallback and provider != CPU else [provider]
        try:
            self._s = (
                CpuSession(ort, model)
                if providers == [CPU] and not profiled
                else ort.InferenceSession(
                    model,
                    self._options(ort, provider, fallback, profiled),
                    providers=providers,
                    enable_fallback=int(fallback),
                )
            )
        except Exception as e:  # onnxruntime's own error types, one per failure kind
            raise NotForEngine(
                f"{provider} cannot take this model"
                f"{'' if fallback else ' without CPU fallback'}: "
                f"{str(e).strip().splitlines()[0][:300]}"
            ) from None
        self._placed: Counter | None = None
        self._provider, self._profiled = provider, profiled

    def _options(self, ort, provider: str, fallback: bool, profiled: bool):
        """:func:`~..onnx.format.quiet`'s options for a provider other than the CPU's alone,
        profiled into a folder of this session's own where ``profiled``."""
        opts = quiet(ort, provider, fallback)
        if profiled:  # removed once read, or with this session
            self._dir = tempfile.TemporaryDirectory(prefix="waiexport-profile-")
            opts.enable_profiling = True
            opts.profile_file_prefix = os.path.join(self._dir.name, "run")
        return opts

    def output_names(self) -> list[str]:
        return [o.name for o in self._s.get_outputs()]

    def run(self, names, feed):
        try:
            out = self._s.run(names, feed)
        except EngineFailure:  # the CPU's session says it already
            raise
        except Exception as e:  # onnxruntime's own error types, one per failure kind
            raise ort_failure(e) from None
        if self._placed is None and self._profiled:
            self._placed = _providers_in_profile(self._s.end_profiling())
            self._dir.cleanup()
        return out

    def placement(self, nodes: Callable[[], int]) -> dict:
        """After a run, how many nodes each provider ran: from the profile, or, for a
        session not profiled, all ``nodes()`` of the model on its one provider."""
        if self._placed is None and not self._profiled:
            self._placed = Counter({self._provider: nodes()})
        return dict(self._placed or {})


def _providers_in_profile(path: str) -> Counter:
    """How many distinct nodes each provider ran, from an onnxruntime profile file."""
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    seen = {}
    for ev in events:
        args = ev.get("args", {})
        if ev.get("cat") == "Node" and "provider" in args:
            seen[
                ev["name"]
                .removesuffix("_kernel_time")
                .removesuffix("_fence_before")
                .removesuffix("_fence_after")
            ] = args["provider"]
    return Counter(seen.values())


#: The oldest onnxruntime this package is tested with, and what older ones lack (measured).
TESTED = (1, 28)
GAPS = (
    "onnxruntime 1.26 has no int8 DepthToSpace (the npu-int8 models' depth-to-space); "
    "1.24.1 computes int64 Max(x, 0) as 0 on [2^31, 2^32), which the export never asks of "
    "it; 1.20 has no s8 x s8 ConvInteger"
)


def version_gap(version: str) -> str | None:
    """One line naming what an onnxruntime older than :data:`TESTED` may lack, or None."""
    try:
        have = tuple(int(p) for p in version.split(".")[:2])
    except ValueError:
        return None
    if have >= TESTED:
        return None
    return (
        f"onnxruntime {version} is older than {TESTED[0]}.{TESTED[1]}, the oldest this "
        f"package is tested with: {GAPS}"
    )


class OrtRuntime:
    """What the onnxruntime engines ask of onnxruntime: its providers, its distribution's
    name and version, and sessions. A test double replaces it to make one named mistake."""

    def available(self) -> list[str]:
        try:
            import onnxruntime as ort
        except ImportError:
            raise EngineUnavailable(
                "onnxruntime is not installed: pip install 'waiexport[ort]', or the "
                "onnxruntime build of your execution provider (onnxruntime-gpu, "
                "onnxruntime-openvino, ...)"
            ) from None
        return ort.get_available_providers()

    def version(self) -> str:
        import onnxruntime as ort

        return ort.__version__

    def session(self, model: bytes, provider: str, fallback: bool) -> OrtSession:
        return OrtSession(model, provider, fallback, profiled=provider != CPU)

    def packages(self) -> dict:
        """The distribution that provides ``onnxruntime`` (``onnxruntime``,
        ``onnxruntime-gpu``, ``onnxruntime-openvino``, …) and its version."""
        dists = metadata.packages_distributions().get("onnxruntime", ["onnxruntime"])
        return versions(*dists, "onnx", "numpy")


def run_session(g: Graph, session, inputs, scalars, every: bool = False):
    """One decode of ``g`` on a session of its exported model: the host's feed, the model,
    the host's checks of its ``check`` outputs (a refused decode returns nothing), then its
    ``out<j>`` outputs by name (:func:`~..format.graph_outputs`). With ``every`` (a model
    built with ``expose``), every tensor by index instead."""
    names = (
        session.output_names()
        if hasattr(session, "output_names")
        else [o.name for o in session.get_outputs()]
    )
    feed = host_feed(g, inputs, scalars, _input_types(session))
    wanted = [n for n in names if n.startswith(("tensor", "check") if every else ("out", "check"))]
    raw = dict(zip(wanted, session.run(wanted, feed)))
    if every:
        graph_outputs(g, ONNX, {n: v for n, v in raw.items() if n.startswith("check")})
        return {
            int(n[6:]): ONNX.chw(v).astype(np.int64)
            for n, v in raw.items()
            if n.startswith("tensor")
        }
    return graph_outputs(g, ONNX, raw)


def _runner(session):
    """A session's run as the engine base asks for it: the feed to every output by name."""
    names = session.output_names()

    def run(feed):
        return dict(zip(names, session.run(names, feed)))

    run.session = session
    return run


def _input_types(session) -> dict:
    """The numpy type name of each of the session's inputs, by name (onnxruntime writes
    ``tensor(int8)``)."""
    s = getattr(session, "_s", session)
    return {i.name: i.type[len("tensor(") : -1] for i in s.get_inputs()}


#: Probe results by engine class, runtime class, provider, fallback and probes: one
#: onnxruntime in one process answers them alike for every target whose models it runs.
_PROBED: dict = {}


class OrtEngine(ModelEngine):
    """A target's exported ONNX model on onnxruntime (``acc32``, ``wai-ops/1-npu``, or the
    target's profile and subset). Loads are cached by the file's digest.

    A provider other than the CPU's runs with CPU fallback disabled, so a model it cannot
    take whole is not for this engine; with ``fallback``, onnxruntime may place nodes on its
    CPU provider, and :attr:`Loaded.placement` says how many went where."""

    def __init__(
        self,
        provider: str = CPU,
        target_name: str = "ort-cpu",
        fallback: bool = False,
        runtime: OrtRuntime | None = None,
    ):
        self.runtime = runtime or OrtRuntime()
        available = self.runtime.available()
        if provider not in available:
            raise EngineUnavailable(
                f"execution provider {provider} is not available in this onnxruntime "
                f"({', '.join(f'{k} {v}' for k, v in self.runtime.packages().items())}); "
                f"it has {', '.join(available)}"
            )
        super().__init__(target_name)
        self.provider, self.fallback = provider, fallback
        self.joins_probes = provider == CPU
        prefix = "ort-acc64" if self.profile == "acc64" else "ort"
        self.name = target_name if provider == CPU else f"{prefix}:{provider}"

    def describe(self) -> dict:
        gap = version_gap(self.runtime.version())
        return {
            **({"version_gap": gap} if gap else {}),
            "runs_on": f"onnxruntime's {self.provider}"
            + (", CPU fallback allowed" if self.fallback and self.provider != CPU else ""),
            "provider": self.provider,
            "provider_version": "not reported by onnxruntime",
            "packages": {**self.runtime.packages(), **versions("waiexport")},
            "probed": self.probed(),
        }

    def probe(self) -> dict:
        """Every probe run once per process on this onnxruntime, provider and fallback
        (:meth:`~.base.ModelEngine.probe`), shared by the engines of every ONNX target."""
        if self._probed is None:
            key = (
                type(self),
                type(self.runtime),
                self.provider,
                self.fallback,
                tuple(self.probes()),
            )
            if key not in _PROBED:
                _PROBED[key] = super().probe()
            self._probed = _PROBED[key]
        return self._probed

    def _session(self, model: bytes):
        return self.runtime.session(model, self.provider, self.fallback)

    def open(self, model):
        return _runner(self._session(model.data))

    def _loaded(self, exp, run, opened) -> Loaded:
        session = opened.session  # an ONNX model's shapes are not static
        built: dict = {}  # models for locating, built when first asked for

        def made(key, build):
            if key not in built:
                built[key] = build()
            return built[key]

        def run_all(inputs, scalars):
            s = made(
                "exposed",
                lambda: self._session(exp.format.exposed(exp.whole()).SerializeToString()),
            )
            return run_session(exp.graph, s, inputs, scalars, every=True)

        def inside(op_index, inputs, scalars):
            from onnx.reference import ReferenceEvaluator  # onnx: for --locate alone

            from ..onnx.export import every_node_model

            model = made("nodes", lambda: every_node_model(exp.prepared))
            s = made("nodes_s", lambda: self._session(model.SerializeToString()))
            feed = host_feed(exp.graph, inputs, scalars, exp.built().inputs)
            names = s.output_names()
            got = dict(zip(names, s.run(names, feed)))
            want = dict(
                zip(names, made("nodes_ev", lambda: ReferenceEvaluator(model)).run(names, feed))
            )
            return [
                (n.name, n.op_type, [(want[o], got[o]) for o in n.output if o in got])
                for n in model.graph.node
                if n.name.startswith(f"op{op_index}/")
            ]

        return Loaded(
            exp.graph,
            run,
            run_all,
            inside,
            lambda: session.placement(lambda: exp.format.nodes(exp.built())),
        )
