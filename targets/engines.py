"""Engines: what runs a graph's decodes. The interface is small, so a user's own engine (an
accelerator's runtime) plugs in the same way.

An engine has a ``name``, the ``profile`` and ``subset`` it implements (§7, §9), a
``load(data)`` that takes WHG1 bytes and returns a :class:`Loaded` or raises ``Refusal``
(§10.5), ``NotForEngine`` (it cannot run this graph) or ``DoesNotFit``, and optionally a
``describe()`` that names what really runs (packages, versions, devices) for the claim
``validate`` prints. ``Loaded.run(inputs, scalars)`` takes every input (state inputs included,
in table order) and the scalar values, and returns the outputs or raises ``Refusal`` (§4).
:meth:`Loaded.sequence` carries state across decodes (§10.3). An engine that cannot run here
at all (a provider that is not installed) raises ``EngineUnavailable`` when made.

An engine that implements the stage operators (§5E) has ``stage(op, inp, modes)``: it takes a
stage vector's ``in`` and ``modes`` as Python values (integers, booleans, text, lists) and
returns its ``expect`` (``{"symbols": …}``, ``{"index": …}``, …) or raises
:class:`waiexport.reference.stage.StageRefusal` with the code and the index ``at`` of §14.1.
``validate`` runs stage vectors on such an engine and says "not for this engine" elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module, metadata
from typing import Callable

import numpy as np

from waiexport.caches import user_cache
from waiexport.graph import Graph
from waiexport.load import load
from waiexport.plan import run_plan
from waiexport.reference import Decoder, apply_policy, decode
from waiexport.reference.arrays import fit

from waiexport.descriptions import target
from .errors import EngineFailure, EngineUnavailable, NotForEngine

__all__ = ["Loaded", "OutputMismatch", "by_name", "in_order", "ReferenceEngine", "OrtEngine", "OrtRuntime", "TosaRefEngine",
           "IreeCpuEngine", "engine", "run_session", "host_feed", "tosa_feed", "run_tosa",
           "EngineUnavailable", "NotForEngine", "EngineFailure", "ENGINES", "CPU"]

CPU = "CPUExecutionProvider"


class OutputMismatch(EngineFailure):
    """An engine's outputs are not the graph's: one missing, extra, of another shape or not
    of an integer type. That decode fails, saying which; it is never compared by position."""


def by_name(values) -> dict:
    """Outputs in the graph's output-table order as the engine interface returns them: by
    name, ``out0``, ``out1``, …"""
    return {f"out{j}": v for j, v in enumerate(values)}


def in_order(g: Graph, got, inputs, scalars) -> list[np.ndarray]:
    """An engine's outputs by name (:func:`by_name`) as the graph's outputs, in table order,
    each checked against the name, shape and integer type the graph gives it for this
    decode (§4's plan); :class:`OutputMismatch` names the first that is not."""
    if not isinstance(got, dict):
        raise OutputMismatch(f"the engine returned {type(got).__name__}, not its outputs by "
                             "name")
    names = [f"out{j}" for j in range(len(g.outputs))]
    missing = [n for n in names if n not in got]
    extra = sorted(str(n)[:40] for n in got if n not in names)
    if missing or extra:
        raise OutputMismatch("; ".join(
            ([f"output {', '.join(missing)} missing"] if missing else []) +
            ([f"extra output {', '.join(extra)}"] if extra else [])))
    planned = run_plan(g, [tuple(np.shape(x)) for x in inputs], [int(s) for s in scalars])
    out = []
    for name, t in zip(names, g.outputs):
        v = got[name]
        if not isinstance(v, np.ndarray) or v.dtype.kind not in "iuO":
            kind = v.dtype.name if isinstance(v, np.ndarray) else type(v).__name__
            raise OutputMismatch(f"output {name} is {kind}, not an integer array")
        if v.dtype.kind == "O" and not all(isinstance(x, int) for x in v.reshape(-1)[:1000]):
            raise OutputMismatch(f"output {name} holds values that are not integers")
        if tuple(v.shape) != tuple(planned[t]):
            raise OutputMismatch(f"output {name} has shape {list(v.shape)}; the graph gives "
                                 f"{list(planned[t])}")
        out.append(v)
    return out


@dataclass
class Loaded:
    """A graph an engine has loaded, and how that engine runs one decode of it.

    ``run(inputs, scalars)`` returns the decode's outputs by name (:func:`by_name`), each an
    integer array of the shape the graph gives it; :meth:`decode` checks that and returns
    them in order. ``run_all``, when the engine can, returns every tensor of the decode by
    index (to locate a difference); ``inside(op_index, inputs, scalars)`` names the first
    node inside that operator's lowering whose value differs from an independent evaluation
    of the model; ``placement()``, after a run, says how many of the model's nodes ran on
    which device."""

    graph: Graph
    run: Callable
    run_all: Callable | None = None
    inside: Callable | None = None
    placement: Callable | None = None

    def decode(self, inputs, scalars) -> list[np.ndarray]:
        """One decode's outputs in table order, checked (:func:`in_order`)."""
        return in_order(self.graph, self.run(inputs, scalars), inputs, scalars)

    def sequence(self) -> Decoder:
        """A fresh sequence of decodes, state starting at each state input's ``init``."""
        return Decoder(self.graph, engine=lambda g, inputs, scalars: self.decode(inputs, scalars))


def _versions(*names: str) -> dict:
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


class ReferenceEngine:
    """The exact reference: ``acc64``, all of ``wai-ops/1``."""

    name, profile, subset = "reference", "acc64", "full"

    def load(self, data: bytes) -> Loaded:
        g = load(data, profile=self.profile, subset=self.subset).graph
        return Loaded(g, lambda inputs, scalars: by_name(decode(g, inputs, scalars)),
                      lambda inputs, scalars: decode(g, inputs, scalars, keep=True))

    def stage(self, op: str, inp: dict, modes: dict) -> dict:
        """The stage operator ``op`` of :mod:`waiexport.reference.stage` on a vector's ``in``."""
        from waiexport.reference.stage import run
        return run(op, inp, modes)

    def describe(self) -> dict:
        return {"runs_on": "the exact Python reference of this package (numba kernels for "
                           "the convolution sums), on this machine's CPU",
                "packages": _versions("waiexport", "numpy", "numba")}


def _cached_load(self, data: bytes) -> Loaded:
    """An exporting engine's ``load``: ``self._load(data)``, once per file digest."""
    key = hashlib.sha256(data).hexdigest()
    if key not in self._cache:
        self._cache[key] = self._load(data)
    return self._cache[key]


class OrtSession:
    """One onnxruntime session on one provider. With ``profiled``, the first run is profiled
    and :meth:`placement` then reads from onnxruntime's profile which provider ran each node."""

    def __init__(self, model: bytes, provider: str, fallback: bool, profiled: bool):
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        if provider != CPU and not fallback:
            opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        self._dir = None
        if profiled:
            self._dir = tempfile.mkdtemp(prefix="waiexport-profile-")
            opts.enable_profiling = True
            opts.profile_file_prefix = os.path.join(self._dir, "run")
        providers = [provider, CPU] if fallback and provider != CPU else [provider]
        try:
            self._s = ort.InferenceSession(model, opts, providers=providers)
        except Exception as e:  # onnxruntime's own error types, one per failure kind
            raise NotForEngine(f"{provider} cannot take this model"
                               f"{'' if fallback else ' without CPU fallback'}: "
                               f"{str(e).strip().splitlines()[0][:300]}") from None
        self._placed: Counter | None = None if profiled else Counter(
            {provider: len(onnx_nodes(model))})

    def output_names(self) -> list[str]:
        return [o.name for o in self._s.get_outputs()]

    def run(self, names, feed):
        out = self._s.run(names, feed)
        if self._placed is None:
            self._placed = _providers_in_profile(self._s.end_profiling())
        return out

    def placement(self) -> dict:
        return dict(self._placed or {})


def onnx_nodes(model: bytes) -> list:
    import onnx
    return list(onnx.load_from_string(model).graph.node)


def _providers_in_profile(path: str) -> Counter:
    """How many distinct nodes each provider ran, from an onnxruntime profile file."""
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    seen = {}
    for ev in events:
        args = ev.get("args", {})
        if ev.get("cat") == "Node" and "provider" in args:
            seen[ev["name"].removesuffix("_kernel_time").removesuffix("_fence_before")
                 .removesuffix("_fence_after")] = args["provider"]
    return Counter(seen.values())


class OrtRuntime:
    """What the onnxruntime engines ask of onnxruntime: its providers, its distribution's
    name and version, and sessions. A test double replaces it to make one named mistake."""

    def available(self) -> list[str]:
        import onnxruntime as ort
        return ort.get_available_providers()

    def session(self, model: bytes, provider: str, fallback: bool) -> OrtSession:
        return OrtSession(model, provider, fallback, profiled=provider != CPU)

    def packages(self) -> dict:
        """The distribution that provides ``onnxruntime`` (``onnxruntime``,
        ``onnxruntime-gpu``, ``onnxruntime-openvino``, …) and its version."""
        dists = metadata.packages_distributions().get("onnxruntime", ["onnxruntime"])
        return _versions(*dists, "onnx", "numpy")


class OrtEngine:
    """An exported ONNX model on onnxruntime: ``acc32``, ``wai-ops/1-npu``. The host does what
    an accelerator cannot: the load, §4's run steps 1–3 and the input policies of step 4; the
    model computes everything else. Loads are cached by the file's digest.

    A provider other than the CPU's runs with CPU fallback disabled, so a model it cannot
    take whole is not for this engine; with ``fallback``, onnxruntime may place nodes on its
    CPU provider, and :attr:`Loaded.placement` says how many went where."""

    profile, subset = "acc32", "npu"

    def __init__(self, provider: str = CPU, target_name: str = "ort-cpu",
                 fallback: bool = False, runtime: OrtRuntime | None = None):
        self.runtime = runtime or OrtRuntime()
        available = self.runtime.available()
        if provider not in available:
            raise EngineUnavailable(
                f"execution provider {provider} is not available in this onnxruntime "
                f"({', '.join(f'{k} {v}' for k, v in self.runtime.packages().items())}); "
                f"it has {', '.join(available)}")
        self.provider, self.fallback = provider, fallback
        self.target = target(target_name)
        self.subset, self.profile = self.target.subset, self.target.profile
        prefix = "ort-acc64" if self.profile == "acc64" else "ort"
        self.name = target_name if provider == CPU else f"{prefix}:{provider}"
        self._cache: dict = {}

    def describe(self) -> dict:
        return {"runs_on": f"onnxruntime's {self.provider}"
                           + (", CPU fallback allowed" if self.fallback and self.provider != CPU
                              else ""),
                "provider": self.provider,
                "provider_version": "not reported by onnxruntime",
                "packages": {**self.runtime.packages(), **_versions("waiexport")},
                "probed": _probed(self.provider)}

    load = _cached_load

    def _load(self, data: bytes) -> Loaded:
        from .exporter import export
        from .onnx.export import build_model, every_node_model
        from .onnx.mac import u8s8_exact

        exp = export(data, self.target, provider=self.provider)
        dtype = storage_dtype(exp.model)
        main = self.runtime.session(exp.model.SerializeToString(), self.provider, self.fallback)
        built: dict = {}   # models for locating, built when first asked for

        def made(key, build):
            if key not in built:
                built[key] = build()
            return built[key]

        def run_all(inputs, scalars):
            s = made("exposed", lambda: self.runtime.session(build_model(
                exp.graph, exp.metadata, expose=True, target=self.target,
                u8s8=u8s8_exact(self.provider)).SerializeToString(),
                self.provider, self.fallback))
            return run_session(exp.graph, s, inputs, scalars, every=True, dtype=dtype)

        def inside(op_index, inputs, scalars):
            from onnx.reference import ReferenceEvaluator
            model = made("nodes", lambda: every_node_model(exp.model))
            s = made("nodes_s", lambda: self.runtime.session(
                model.SerializeToString(), self.provider, self.fallback))
            feed = host_feed(exp.graph, inputs, scalars, dtype)
            names = s.output_names()
            got = dict(zip(names, s.run(names, feed)))
            want = dict(zip(names, made("nodes_ev", lambda: ReferenceEvaluator(model))
                            .run(names, feed)))
            return [(n.name, n.op_type, [(want[o], got[o]) for o in n.output if o in got])
                    for n in model.graph.node if n.name.startswith(f"op{op_index}/")]
        return Loaded(exp.graph, lambda i, s: run_session(exp.graph, main, i, s,
                                                          dtype=dtype),
                      run_all, inside, main.placement)


@contextmanager
def _native_output_into(sink: list):
    """Collect what native code writes to file descriptors 1 and 2 while inside."""
    with tempfile.TemporaryFile() as f:
        saved = [os.dup(1), os.dup(2)]
        for fd in (1, 2):
            os.dup2(f.fileno(), fd)
        try:
            yield
        finally:
            for fd, old in zip((1, 2), saved):
                os.dup2(old, fd)
                os.close(old)
            f.seek(0)
            sink.append(f.read().decode("utf-8", "replace"))


class TosaRefEngine:
    """The ``tosa`` target's model on the TOSA reference model (tosa-tools), in process:
    ``acc32``, ``wai-ops/1-npu``. TOSA shapes are static, so a model is built per decode
    shape and cached by graph digest and shape; the host does the load, §4's run steps 1–3
    and the input policies. A status other than ``TOSA_VALID`` fails the decode with the
    reference model's own message."""

    name, profile, subset = "tosa-ref", "acc32", "npu"

    def __init__(self):
        try:   # availability, here rather than mid-run
            import_module("tosa_reference_model")
        except ImportError:
            raise EngineUnavailable("tosa-tools is not installed: pip install "
                                    "'waiexport[tosa]'") from None
        self.target = target("tosa")
        self._cache: dict = {}

    def describe(self) -> dict:
        return {"runs_on": "the TOSA reference model of tosa-tools, in process",
                "packages": _versions("tosa-tools", "waiexport", "numpy")}

    load = _cached_load

    def _load(self, data: bytes) -> Loaded:
        from .exporter import export, probe_inputs
        from .onnx.lower import ExportError

        exp = export(data, self.target)
        models: dict = {}

        def model(shapes):
            if shapes not in models:
                models[shapes] = exp.tosa(list(shapes))
            return models[shapes]
        probes = probe_inputs(exp.graph)
        try:
            if probes:
                model(tuple(tuple(x.shape) for x in probes[0][0]))
        except ExportError as e:
            raise NotForEngine(f"tosa export refuses it: {e}") from None

        def run(inputs, scalars):
            m = model(tuple(tuple(np.shape(x)) for x in inputs))
            return by_name(self._execute(m, tosa_feed(exp.graph, m, inputs, scalars)))
        return Loaded(exp.graph, run)

    def _execute(self, m, inputs) -> list:
        """One run of the TOSA model ``m`` on NHWC ``inputs``: the outputs, CHW int64."""
        return run_tosa(m, inputs)


def _host_cpu() -> str:
    """This CPU, for a compile cache key: the machine and its model name."""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f
                          if line.startswith("model name")), "")
    except OSError:
        model = ""
    return f"{platform.machine()} {model or platform.processor()}".strip()


def _tosa_opt() -> str:
    """tosa-tools' ``tosa-opt``: beside this interpreter's scripts, on PATH, or in the
    ``bin/`` folder the wheel installs into site-packages."""
    import shutil
    import sysconfig
    for candidate in (os.path.join(sysconfig.get_path("scripts"), "tosa-opt"),
                      shutil.which("tosa-opt"),
                      os.path.join(sysconfig.get_path("purelib"), "bin", "tosa-opt")):
        if candidate and os.path.exists(candidate):
            return candidate
    raise EngineUnavailable("tosa-opt (from tosa-tools) is not installed: pip install "
                            "'waiexport[tosa]'")


class IreeCpuEngine(TosaRefEngine):
    """The ``tosa`` target's model compiled by IREE for this CPU and run by IREE's runtime,
    an executor independent of the TOSA reference model: the flatbuffer → ``tosa-opt``
    (generic MLIR) → IREE ``llvm-cpu`` (``--iree-llvmcpu-target-cpu=host``) → a ``.vmfb``,
    cached on disk by the flatbuffer's digest, the IREE compiler's version and this CPU, so a
    second run compiles nothing. IREE checks none of TOSA's domain conditions: the export
    keeps every value inside them on its own. A compile or runtime error fails that decode
    with IREE's message."""

    name, profile, subset = "iree-cpu", "acc32", "npu"

    def __init__(self):
        super().__init__()
        try:   # availability, here rather than mid-run
            for module in ("iree.compiler", "iree.runtime"):
                import_module(module)
        except ImportError:
            raise EngineUnavailable("IREE is not installed: pip install 'waiexport[iree]'") \
                from None
        self.compiled = 0        # compiles this engine ran (the rest came from the cache)
        self._versions = _versions("iree-base-compiler", "iree-base-runtime")
        self._cpu = _host_cpu()

    def describe(self) -> dict:
        return {"runs_on": f"IREE llvm-cpu code for this CPU ({self._cpu}), IREE's local-task "
                           "runtime",
                "packages": {**self._versions, **_versions("tosa-tools", "waiexport")},
                "target_cpu": "host"}

    def _vmfb(self, m) -> bytes:
        import subprocess
        import iree.compiler as ic
        key = hashlib.sha256(m.data + json.dumps([self._versions, self._cpu]).encode())
        folder = user_cache("iree")
        folder.mkdir(parents=True, exist_ok=True)
        path = os.path.join(folder, key.hexdigest() + ".vmfb")
        if os.path.exists(path):
            with open(path, "rb") as f:
                return f.read()
        with tempfile.TemporaryDirectory() as tmp:
            fb, empty, mlir = (os.path.join(tmp, n) for n in ("g.tosa", "e.mlir", "g.mlir"))
            with open(fb, "wb") as f:
                f.write(m.data)
            open(empty, "w").close()
            r = subprocess.run([_tosa_opt(), f"--tosa-deserialize=tosa-flatbuffer-filename={fb}",
                                "--mlir-print-op-generic", empty, "-o", mlir],
                               capture_output=True, text=True)
            if r.returncode:
                raise EngineFailure(f"tosa-opt: {(r.stderr.strip().splitlines() or ['?'])[0]}")
            try:
                vmfb = ic.compile_file(mlir, target_backends=["llvm-cpu"],
                                       extra_args=["--iree-llvmcpu-target-cpu=host"])
            except Exception as e:   # IREE's CompilerToolError carries the compiler's output
                raise EngineFailure(f"IREE compiler: {str(e).strip().splitlines()[0][:300]}") \
                    from None
        self.compiled += 1
        with open(path + ".part", "wb") as f:
            f.write(vmfb)
        os.replace(path + ".part", path)
        return vmfb

    def _execute(self, m, inputs) -> list:
        import iree.runtime as irt
        try:
            ctx = irt.SystemContext(config=irt.Config("local-task"))
            ctx.add_vm_module(irt.VmModule.copy_buffer(ctx.instance, self._vmfb(m)))
            outs = ctx.modules.module["main"](*inputs)
        except EngineFailure:
            raise
        except Exception as e:   # IREE's runtime raises its own error types
            raise EngineFailure(f"IREE runtime: {str(e).strip().splitlines()[0][:300]}") \
                from None
        outs = outs if isinstance(outs, (tuple, list)) else [outs]
        return [np.transpose(np.asarray(o)[0], (2, 0, 1)).astype(np.int64) for o in outs]


def tosa_feed(g: Graph, m, inputs, scalars) -> list:
    """The TOSA model ``m``'s inputs for one decode, after what the host does
    (:func:`host_feed`): NHWC in each input's storage type, each scalar ``[1, 1, 1, 1]``."""
    feed = host_feed(g, inputs, scalars)
    return [(v.reshape(1, 1, 1, 1) if name.startswith("scalar") else
             np.transpose(v[0], (1, 2, 0))[None]).astype(dtype)
            for (name, v), (_, dtype) in zip(feed.items(), m.inputs)]


def run_tosa(m, inputs) -> list:
    import tosa_reference_model as rm
    said: list = []
    with _native_output_into(said):
        try:
            outs, status = rm.run(m.data, inputs)
        except ValueError as e:   # the reference model rejects the graph before running it
            outs, status = None, str(e)
    if outs is None:
        raise EngineFailure(f"TOSA reference model: {status}: "
                            f"{(said[0].strip().splitlines() or ['no message'])[0][:300]}")
    if status != rm.GraphStatus.TOSA_VALID:
        why = [line for line in said[0].splitlines() if "failure" in line or "ERROR" in line]
        raise EngineFailure(f"TOSA reference model: {status.name}: "
                            f"{(why or said[0].splitlines() or ['no message'])[0].strip()}")
    return [np.transpose(o[0], (2, 0, 1)).astype(np.int64) for o in outs]


def _probed(provider: str = CPU) -> str:
    """What the export probed of onnxruntime's kernels on ``provider``, in words, for the
    claim."""
    from .onnx.mac import u8s8_exact
    verdict = "exact, so convolutions with int8 weights use it" if u8s8_exact(provider) else \
        "not exact there, so convolutions use u8 x u8 ConvInteger"
    return (f"MatMulInteger u8 x s8 on {provider} at the worst-case operands of our digits "
            f"(pairs of 128 x -128 and 128 x 127): {verdict}; a probe at the worst case rules "
            "out pair saturation, not every possible error")


def storage_dtype(model) -> type:
    """The numpy type of an exported model's graph tensors (int32, or int64 for acc64)."""
    from onnx import TensorProto
    first = next(i for i in model.graph.input if not i.name.startswith("scalar"))
    return np.int64 if first.type.tensor_type.elem_type == TensorProto.INT64 else np.int32


def host_feed(g: Graph, inputs, scalars, dtype=np.int32) -> dict:
    """The model's feed for one decode, after what the host does: §4's run steps 1–3 and the
    input policies (refusals with their codes); tensors as ``dtype``, the model's storage."""
    run_plan(g, [tuple(np.shape(x)) for x in inputs], [int(s) for s in scalars])
    feed = {}
    counts = {"data": 0, "state": 0}
    for i, (inp, x) in enumerate(zip(g.inputs, inputs)):
        value = apply_policy(fit(x), g.tensor(inp.tensor), f"input {i}")
        feed[f"{'in' if inp.kind == 'data' else 'state'}{counts[inp.kind]}"] = \
            value.astype(dtype)[None]
        counts[inp.kind] += 1
    for j, s in enumerate(scalars):
        feed[f"scalar{j}"] = np.array([int(s)], dtype=np.int64)
    return feed


def run_session(g: Graph, session, inputs, scalars, every: bool = False, dtype=np.int32):
    """One decode of ``g`` on a session of its exported model (:func:`host_feed`, then the
    model, then the host's checks of the model's ``check<t>`` outputs, the unclamped values
    of an acc64 graph's internal ``check`` tensors, in graph order: a refused decode returns
    nothing): the model's ``out<j>`` outputs by name, ``[C, H, W]`` in the model's integer
    type. With ``every`` (a model built with ``expose``), every tensor by index instead."""
    feed = host_feed(g, inputs, scalars, dtype)
    names = _names(session)
    wanted = [n for n in names if n.startswith("tensor" if every else "out")]
    checks = [n for n in names if n.startswith("check")]
    outs = dict(zip(wanted + checks, session.run(wanted + checks, feed)))
    for n in checks:
        t = int(n[5:])
        apply_policy(outs[n][0].astype(np.int64), g.tensor(t), f"tensor {t}")
    if every:
        return {int(n[6:]): outs[n][0].astype(np.int64) for n in wanted}
    return {n: _chw(outs[n]) for n in wanted}


def _chw(a):
    """A model output ``[1, C, H, W]`` as ``[C, H, W]``, unconverted: a type or a shape that
    is not the graph's is the engine's result, for :func:`in_order` to judge."""
    a = np.asarray(a)
    return a[0] if a.ndim == 4 and a.shape[0] == 1 else a


def _names(session) -> list[str]:
    if hasattr(session, "output_names"):
        return session.output_names()
    return [o.name for o in session.get_outputs()]


#: The engines this package provides, with what each runs (help texts and errors read it).
ENGINES = {
    "reference": "the exact reference (acc64, all of wai-ops/1)",
    "ort-cpu": "the ort-cpu export on onnxruntime's CPU provider (acc32, wai-ops/1-npu)",
    "npu-int8": "the npu-int8 export (the strict unit's model) on onnxruntime's CPU provider",
    "ort-cpu-acc64": "the acc64 export on onnxruntime's CPU provider (acc64, all of wai-ops/1: "
                     "int64 tensors, 128-bit values from int64 limbs)",
    "tosa-ref": "the tosa export on the TOSA reference model (tosa-tools)",
    "iree-cpu": "the tosa export compiled by IREE for this CPU (llvm-cpu) and run by IREE",
    "ort:<Provider>": "the ort-cpu export on another onnxruntime execution provider, CPU "
                      "fallback disabled",
    "ort-acc64:<Provider>": "the acc64 export on another onnxruntime execution provider, CPU "
                            "fallback disabled",
}


def engine(name: str, fallback: bool = False):
    """The engine called ``name`` (:data:`ENGINES`), or a third party's, registered as an
    entry point in the group ``waiexport.engines`` whose object, called with no arguments,
    is an engine. ``fallback`` lets an ``ort:<Provider>`` engine place nodes on the CPU
    provider (each vector then says how many went there). Raises ``KeyError`` for an
    unknown name and :class:`EngineUnavailable` for one that cannot run here."""
    if name == "reference":
        return ReferenceEngine()
    if name in ("ort-cpu", "npu-int8", "ort-cpu-acc64"):
        return OrtEngine(target_name=name)
    if name == "tosa-ref":
        return TosaRefEngine()
    if name == "iree-cpu":
        return IreeCpuEngine()
    if name.startswith("ort:"):
        return OrtEngine(provider=name[4:], fallback=fallback)
    if name.startswith("ort-acc64:"):
        return OrtEngine(provider=name[10:], target_name="ort-cpu-acc64", fallback=fallback)
    for ep in metadata.entry_points(group="waiexport.engines"):
        if ep.name == name:
            return ep.load()()
    raise KeyError(f"unknown engine {name!r}: {', '.join(ENGINES)}, or one registered under "
                   "the entry point group waiexport.engines")


def machine() -> str:
    """This machine, in words, for a claim."""
    return f"{platform.machine()} {platform.processor() or platform.platform()}"
