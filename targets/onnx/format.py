"""ONNX as a format (:class:`waiexport.targets.format.Format`): one model for every decode
shape, NCHW ``[1, C, H, W]`` in the storage type of the graph's tensors (int32, or int64 for
an ``acc64`` target; an input whose declared range fits 8 bits as int8 or uint8), checked by
onnxruntime's CPU provider."""

from __future__ import annotations

import hashlib
import re
from functools import cached_property
from importlib.util import find_spec

import numpy as np

from waiexport.caches import cpu_key

from ..errors import DoesNotFit, EngineFailure, EngineUnavailable
from ..format import Format, Model, host_feed
from ..stored import optimised
from .probes import addressing

__all__ = ["ONNX", "OnnxFormat", "CpuSession", "THREADED", "ort_failure"]


def _types(values) -> dict:
    from onnx import helper  # onnx: 0.8 s to import fresh; a warm load needs none

    return {
        v.name: np.dtype(helper.tensor_dtype_to_np_dtype(v.type.tensor_type.elem_type)).name
        for v in values
    }


class _Read(Model):
    """A model given as bytes (a probe's, one kept on disk): parsed, which imports onnx
    (0.8 s on a fresh install, docs/formats.md), only when its graph is asked for, or
    its inputs' and outputs' types where they were not given."""

    def __init__(
        self,
        data: bytes,
        inputs: dict | None = None,
        outputs: dict | None = None,
        nodes: int | None = None,
    ):
        self.data, self.shapes, self._given, self.count = data, None, (inputs, outputs), nodes

    @cached_property
    def native(self):
        import onnx  # onnx: 0.8 s to import fresh; a warm load needs none

        return onnx.load_from_string(self.data)

    @property
    def inputs(self) -> dict:
        return self._given[0] if self._given[0] is not None else _types(self.native.graph.input)

    @property
    def outputs(self) -> dict:
        return self._given[1] if self._given[1] is not None else _types(self.native.graph.output)


class OnnxFormat(Format):
    name, layout, suffix, static, cuts = "onnx", "NCHW [1, C, H, W]", ".onnx", False, True
    judge = "onnxruntime's CPU provider"

    def require(self) -> None:
        if find_spec("onnxruntime") is None:
            raise EngineUnavailable(
                "onnxruntime (which checks every exported ONNX model) is not installed: pip "
                "install 'waiexport[ort]', or the onnxruntime build of your execution provider"
            )

    def prepare(self, exp, chosen: dict) -> None:
        from .export import build_model  # onnx: at export alone (a warm load needs none)
        from .probes import SATURATION

        exp.u8s8 = u8s8 = chosen.get(SATURATION)
        exp.prepared = build_model(
            exp.graph,
            exp.metadata,
            target=exp.target,
            label=exp.outcome.label,
            u8s8=u8s8,
            bounds=exp.outcome.member.bounds,
        )
        _runtime_fits(exp)

    def exposed(self, exp):
        """The export's model with every graph tensor ``t`` an output ``tensor<t>`` too
        (:func:`~.export.build_model`'s ``expose``), built as the export's own model is,
        once."""
        from .export import build_model  # onnx: at export alone (a warm load needs none)

        if "exposed" not in exp._models:
            exp._models["exposed"] = build_model(
                exp.graph,
                exp.metadata,
                expose=True,
                target=exp.target,
                label=exp.outcome.label,
                u8s8=exp.u8s8,
                bounds=exp.outcome.member.bounds,
            )
        return exp._models["exposed"]

    def prefix(self, exp, t: int, shapes=None) -> Model:
        import onnx  # onnx: 0.8 s to import fresh; a warm load needs none

        m = onnx.ModelProto()
        m.CopyFrom(self.exposed(exp))
        keep = [
            o for o in m.graph.output if o.name in (f"tensor{t}",) or o.name.startswith("check")
        ]
        del m.graph.output[:]
        m.graph.output.extend(keep)
        return Model(m.SerializeToString(), _types(m.graph.input), _types(m.graph.output), None, m)

    @property
    def probes(self) -> tuple:
        from .probes import PROBES  # onnx: 0.8 s to import fresh; a warm load needs none

        return PROBES

    @property
    def choices(self) -> tuple:
        from .probes import SATURATION  # onnx: 0.8 s to import fresh; a warm load needs none

        return (SATURATION,)

    def joined(self, probes: tuple):
        from .probes import Joined  # onnx: 0.8 s to import fresh; a warm load needs none

        return Joined(probes)

    def chosen_words(self, found: dict) -> str:
        from .probes import SATURATION  # onnx: 0.8 s to import fresh; a warm load needs none

        if SATURATION not in found:
            return ""
        return "; MatMulInteger u8 x s8 at the worst case of our digits: " + (
            "exact, so convolutions with int8 weights use it"
            if found[SATURATION] is None
            else "not exact, so convolutions use u8 x u8 ConvInteger"
        )

    def used(self, model) -> set:
        from .probes import used  # onnx: 0.8 s to import fresh; a warm load needs none

        return used(model.native)

    def build(self, exp, shapes=None) -> Model:
        m = exp.prepared
        return Model(m.SerializeToString(), _types(m.graph.input), _types(m.graph.output), None, m)

    def feed(self, g, model, inputs, scalars) -> dict:
        return host_feed(g, inputs, scalars, model.inputs)

    def model_of(
        self,
        data: bytes,
        inputs: dict | None = None,
        outputs: dict | None = None,
        nodes: int | None = None,
    ) -> Model:
        """A model given as bytes (a probe's, one kept on disk with its inputs' and outputs'
        types and its count of nodes), as the format holds it (:class:`_Read`)."""
        return _Read(data, inputs, outputs, nodes)

    def nodes(self, model) -> int:
        """Every node, those of ``If`` branches too (each branch's, though a decode runs
        one)."""
        if isinstance(model, _Read) and model.count is not None:
            return model.count  # a kept model's count: no onnx imported for it
        from .emit import subgraph_nodes  # onnx: imported only where a model is read

        return sum(1 for _ in subgraph_nodes(model.native.graph.node))

    def run(self, model, feed) -> dict:
        return self.runner(model)(feed)

    def runner(self, model):
        import onnxruntime as ort

        session = CpuSession(ort, model.data)
        names = [o.name for o in session.get_outputs() if not o.name.startswith("tensor")]
        return lambda feed: dict(zip(names, session.run(names, feed)))

    def report(self, exp, model) -> dict:
        return {"metadata": exp.metadata, "nodes": self.nodes(model)}

    def summary(self, exp, model, path, decodes) -> str:
        return (
            f"{path}: {self.nodes(model)} nodes, {len(model.data)} bytes, "
            f"integer tensors only; self-check: {decodes} decodes bit-exact against the "
            "reference"
        )

    def chw(self, a):
        a = np.asarray(a)
        return a[0] if a.ndim == 4 and a.shape[0] == 1 else a

    def shape(self, chw) -> list:
        return [1, *chw]


def _runtime_fits(exp) -> None:
    """Raise :class:`DoesNotFit` naming each node (by our graph's label) whose lowering uses
    an ONNX operator the target's runtime cannot compute exactly, or does not take (its
    description's ONNX options: ``inexact`` and ``lacks``)."""
    from .probes import typed_nodes  # onnx: at export alone (a warm load needs none)

    t = exp.target
    if not (t.options.inexact or t.options.lacks):
        return
    found: dict = {}
    for name, op, dtype in typed_nodes(exp.prepared):
        why = t.options.cannot(op, dtype)
        if why and name.startswith("op"):
            reasons = found.setdefault(int(name[2:].split("/")[0]), [])
            if why not in reasons:
                reasons.append(why)
    if found:
        raise DoesNotFit(
            f"does not fit {t.name}: "
            + "; ".join(
                f"{exp.outcome.label(k)} ({exp.graph.ops[k].name}): its lowering needs "
                + ", and ".join(why[:3])
                for k, why in sorted(found.items())
            )
        )


def addressing_scalars(data: bytes) -> frozenset:
    """The scalar inputs (``scalar<j>``) of the model ``data`` that only address a tensor
    (a crop's offset or size, :func:`.probes.addressing`), which :func:`bound_scalars`
    binds; a scalar that is a value (a ``fill``'s) stays an input, since a runtime may fold
    a constant where it would not fold an input (OpenVINO writes into a folded ``fill``,
    :data:`.probes.FOLDED`)."""
    import onnx  # onnx: only an engine that compiles per decode reads its model's scalars

    m = onnx.load_from_string(data)
    return frozenset(addressing(m, [i.name for i in m.graph.input if i.name.startswith("scalar")]))


def decode_key(feed: dict, bound: frozenset) -> tuple:
    """What a model compiled per decode is kept by: each input's name, shape and type, and
    the value of each scalar it binds (``bound``, :func:`bound_scalars`)."""
    return tuple(
        (k, v.shape, v.dtype.str, int(v[0]) if k in bound else None)
        for k, v in sorted(feed.items())
    )


def bound_scalars(data: bytes, feed: dict, bound: frozenset) -> tuple[bytes, dict]:
    """The model ``data`` with each scalar input of ``bound`` (:func:`addressing_scalars`)
    made a constant of its value in ``feed``, and the feed without them: for an engine that
    compiles per decode, whose runtime goes wrong where a size comes from a run-time input
    (tract fails a ``Slice`` of run-time bounds, "Symbol points to an invalid SymbolScope",
    in int32 and int64 alike; OpenVINO padded a side of 6 to 6, not 8, after a crop whose
    width is a scalar; measured)."""
    scalars = {k: v for k, v in feed.items() if k in bound}
    if not scalars:
        return data, feed
    import onnx  # onnx: only a model with a scalar to bind is read
    from onnx import numpy_helper  # onnx: as above

    m = onnx.load_from_string(data)
    kept = [i for i in m.graph.input if i.name not in scalars]
    del m.graph.input[:]
    m.graph.input.extend(kept)
    m.graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in scalars.items())
    return m.SerializeToString(), {k: v for k, v in feed.items() if k not in scalars}


def quiet(ort, provider: str = "CPUExecutionProvider", fallback: bool = False):
    """Session options that keep onnxruntime's own log lines (its errors too: each one is
    raised, and reported, as an exception) off the terminal, that keep every node on
    ``provider`` unless ``fallback``, and whose worker threads wait between runs without
    spinning: a process holds a session per model it has loaded, and the spinning pools of
    the sessions that had just run took more than half the main job's CPU time (7.1 s
    against 3.0 s, measured)."""
    ort.set_default_logger_severity(4)
    opts = ort.SessionOptions()
    opts.log_severity_level = 4
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if provider != "CPUExecutionProvider" and not fallback:
        opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    return opts


#: Elements of a run's inputs from which onnxruntime's threads pay for themselves on our
#: models (measured: int_synth's transposed convolutions on 16×16 inputs, 49,152 elements,
#: 2.3× as fast on two threads; on 8×8, 12,288, no faster; a 64-channel 3×3 conv on 32×32,
#: 65,536, no faster).
THREADED = 1 << 15


class CpuSession:
    """onnxruntime's CPU session of one model (:func:`quiet`'s options): a run on inputs of
    fewer than :data:`THREADED` elements on one thread, the rest on onnxruntime's pool of
    threads, opened when first needed. A pool's threads are started and stopped with each
    session, 0.45 ms of a corpus model's 1.2 ms (measured over the corpus's 126), and split
    no work that small; which thread computes a part changes no integer it computes."""

    def __init__(self, ort, data: bytes):
        self._ort, self._data, self._pool = ort, data, None
        self._one = _offline(ort, data, threads=1)

    def get_inputs(self):
        return self._one.get_inputs()

    def get_outputs(self):
        return self._one.get_outputs()

    def run(self, names, feed):
        """The outputs ``names``; onnxruntime's own error (one it raises on a run, such as an
        allocation it cannot make) is :class:`~..errors.EngineFailure`."""
        session = self._one
        if sum(np.size(v) for v in feed.values()) >= THREADED:
            if self._pool is None:
                self._pool = _offline(self._ort, self._data, threads=0)
            session = self._pool
        try:
            return session.run(names, feed)
        except Exception as e:  # onnxruntime's own error types, one per failure kind
            raise ort_failure(e) from None


def ort_failure(e: Exception):
    """onnxruntime's error ``e`` on a run as an :class:`~..errors.EngineFailure`, without the
    status number and the C++ source line and signature it cites, so its reason (an
    allocation it could not make, and its size) fits the line."""
    return EngineFailure.said(
        "onnxruntime",
        re.sub(r"^\[ONNXRuntimeError\] : \d+ : | /onnxruntime_src/\S+ [^)]*\)", "", str(e).strip()),
    )


def _offline(ort, data: bytes, threads: int):
    """A session of ``data`` on ``threads`` threads (0: onnxruntime's default), in
    onnxruntime's offline mode, which its documentation gives for start-up time: the graph
    onnxruntime makes of the model at its default optimisation level, on this onnxruntime and
    this CPU, is kept (:func:`~..stored.optimised`) and opened in later runs with its
    optimisations off, so what runs is the graph it would have made (a corpus model opens in
    0.7 ms, not 1.2; a scale graph in 4 ms, not 8; measured)."""

    cpu = ["CPUExecutionProvider"]

    def options():
        opts = quiet(ort)
        opts.intra_op_num_threads = threads
        return opts

    def opened(graph: bytes):
        opts = options()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return ort.InferenceSession(graph, opts, providers=cpu)

    def made(path: str | None):
        opts = options()
        if path:
            opts.optimized_model_filepath = path
        return ort.InferenceSession(data, opts, providers=cpu)

    return optimised(
        ["onnxruntime", ort.__version__, cpu_key(), hashlib.sha256(data).hexdigest()], opened, made
    )


ONNX = OnnxFormat()
