"""TOSA as a format (:class:`waiexport.targets.format.Format`): a TOSA 1.0 flatbuffer per
decode shape (TOSA shapes are static), NHWC ``[1, H, W, C]``, each tensor in the narrowest
type its certified interval allows, each scalar an int32 ``[1, 1, 1, 1]``; checked on the
TOSA reference model of tosa-tools. A saved model has its provenance beside it in
``MODEL.json``."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager

import numpy as np

from waiexport.jsonio import dumps

from ..errors import EngineFailure, EngineUnavailable
from ..format import Format, Model, host_feed
from .export import build_tosa, operator_names

__all__ = ["TOSA", "TosaFormat", "run_tosa"]


class TosaFormat(Format):
    name, layout, suffix, static = "tosa", "NHWC [1, H, W, C]", ".tosa", True
    judge = "the TOSA reference model"
    judge_at_size = "iree-cpu"
    forks = True  # tosa_reference_model.run: one thread, the interpreter held (measured)

    def require(self) -> None:
        try:
            import tosa_reference_model  # noqa: F401
            import tosa_serializer  # noqa: F401
        except ImportError:
            raise EngineUnavailable(
                "tosa-tools is not installed: pip install 'waiexport[tosa]'"
            ) from None

    def build(self, exp, shapes) -> Model:
        m = build_tosa(
            exp.graph, list(shapes), label=exp.outcome.label, bounds=exp.outcome.member.bounds
        )
        return Model(
            m.data,
            {f"input{k}": np.dtype(d).name for k, (_, d) in enumerate(m.inputs)},
            {f"out{j}": np.dtype(d).name for j, (_, d) in enumerate(m.outputs)},
            tuple(shapes),
            m,
        )

    def feed(self, g, model, inputs, scalars) -> dict:
        feed = host_feed(g, inputs, scalars)
        return {
            name: (
                v.reshape(1, 1, 1, 1)
                if name.startswith("scalar")
                else np.transpose(v[0], (1, 2, 0))[None]
            ).astype(dtype)
            for (name, v), (_, dtype) in zip(feed.items(), model.native.inputs)
        }

    def run(self, model, feed) -> dict:
        return {f"out{j}": o for j, o in enumerate(run_tosa(model.native, list(feed.values())))}

    def chw(self, a):
        a = np.asarray(a)
        return np.transpose(a[0], (2, 0, 1)) if a.ndim == 4 and a.shape[0] == 1 else a

    def shape(self, chw) -> list:
        c, h, w = chw
        return [1, h, w, c]

    def provenance(self, exp, model) -> dict:
        """The export's metadata and the model's inputs' and outputs' types and shapes."""
        m = model.native
        return {
            **exp.metadata,
            "wai.inputs": [{"dtype": d, "nhwc": list(s)} for s, d in m.inputs],
            "wai.outputs": [{"dtype": d, "nhwc": list(s)} for s, d in m.outputs],
        }

    def files(self, exp, model, name) -> dict:
        return {
            name: model.data,
            f"{name}.json": (dumps(self.provenance(exp, model)) + "\n").encode(),
        }

    def report(self, exp, model) -> dict:
        return {"metadata": self.provenance(exp, model), "nodes": self.nodes(model)}

    def nodes(self, model) -> int:
        return _nodes(model)[0]

    def summary(self, exp, model, path, decodes) -> str:
        nodes, consts = _nodes(model)
        return (
            f"{path}: TOSA 1.0, {nodes} operators and {consts} constants, "
            f"{len(model.data)} bytes, integer tensors only, inputs "
            + ", ".join(f"{d} {list(s)}" for s, d in model.native.inputs)
            + f"; self-check: {decodes} decodes bit-exact on {self.judge}; provenance in "
            f"{path}.json"
        )


def _nodes(model) -> tuple[int, int]:
    """The flatbuffer's operators that compute, and its constants (``CONST``,
    ``CONST_SHAPE``), counted from its bytes: an ONNX model keeps its constants as
    initializers, not nodes."""
    names = operator_names(model.data)
    consts = sum(n.startswith("CONST") for n in names)
    return len(names) - consts, consts


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


def run_tosa(m, inputs) -> list:
    """The TOSA model ``m`` on the TOSA reference model, its NHWC outputs as it gives them;
    a status other than ``TOSA_VALID``, or the reference model's rejection of the graph, is
    :class:`EngineFailure` with its own message."""
    import tosa_reference_model as rm

    said: list = []
    with _native_output_into(said):
        try:
            outs, status = rm.run(m.data, inputs)
        except ValueError as e:  # the reference model rejects the graph before running it
            outs, status = None, str(e)
    if outs is None:
        raise EngineFailure(
            f"TOSA reference model: {status}: "
            f"{(said[0].strip().splitlines() or ['no message'])[0][:300]}"
        )
    if status != rm.GraphStatus.TOSA_VALID:
        why = [line for line in said[0].splitlines() if "failure" in line or "ERROR" in line]
        raise EngineFailure(
            f"TOSA reference model: {status.name}: "
            f"{(why or said[0].splitlines() or ['no message'])[0].strip()}"
        )
    return list(outs)


TOSA = TosaFormat()
