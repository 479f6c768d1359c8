"""Export for a target: load against ``acc32`` and ``wai-ops/1-npu``, rewrite for the target,
build the ONNX model, and check it against the reference at the ends of the declared ranges."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import onnx

from waiexport import __version__
from waiexport.certificate import certificate_bytes, certify
from waiexport.graph import Graph
from waiexport.load import load
from waiexport.plan import run_plan
from waiexport.reference import decode
from waiexport.refusal import Refusal
from waiexport.rewrites.manager import Outcome, rewrite_for

from waiexport.descriptions import Target
from .onnx import mac
from .onnx.export import DoesNotFit, ExportError, build_model

__all__ = ["Export", "Fit", "export", "fit", "self_check", "probe_inputs", "DoesNotFit"]


@dataclass
class Export:
    """An exported model with what it came from."""

    model: onnx.ModelProto | None     # the ONNX model; None for a TOSA target (:meth:`tosa`)
    outcome: Outcome
    metadata: dict
    source: Graph

    @property
    def graph(self) -> Graph:
        return self.outcome.graph

    def tosa(self, shapes: list):
        """The TOSA model of the rewritten graph on these input shapes (TOSA is static)."""
        from .tosa.export import build_tosa
        return build_tosa(self.graph, shapes, label=self.outcome.label)


def export(data: bytes, target: Target, name: str = "graph",
           provider: str | None = None) -> Export:
    """Export the WHG1 file ``data`` for ``target``; an ONNX model for onnxruntime
    ``provider`` uses the kernels the probe found exact there (the CPU's when None).

    Raises
    ------
    Refusal
        At load (§10.5), or ``model_mismatch`` when the graph does not meet ``acc32`` or lies
        outside ``wai-ops/1-npu`` (§9.2).
    ExportError
        When an operator cannot be mapped onto the target exactly.
    """
    member = load(data, profile=target.profile, subset=target.subset, name=name)
    outcome = rewrite_for(member.graph, target, name)
    unmapped = [f"{outcome.label(i)} ({op}): {limit}" for i, op, limits in outcome.remaining
                for limit in limits if not limit.mapped]
    if unmapped:
        raise DoesNotFit(f"does not fit {target.name}: " + "; ".join(unmapped))
    metadata = {
        "wai.whg1_sha256": hashlib.sha256(data).hexdigest(),
        "wai.rewritten_sha256": hashlib.sha256(outcome.data).hexdigest(),
        "wai.certificate_sha256": hashlib.sha256(
            certificate_bytes(certify([member]))).hexdigest(),
        "wai.target": target.name,
        "wai.tool": f"waiexport {__version__}",
    }
    model = build_model(outcome.graph, metadata, target=target, label=outcome.label,
                        u8s8=None if provider is None else mac.u8s8_exact(provider)) \
        if target.fmt == "onnx" else None
    return Export(model, outcome, metadata, member.graph)


@dataclass
class Fit:
    """Whether a graph fits a target, why not, and the export when it does."""

    fits: bool
    reasons: list
    export: Export | None = None


def fit(data: bytes, target: Target, name: str = "graph") -> Fit:
    """The one answer to "does this graph fit this target", which ``rewrite``, ``export``,
    ``check --target`` and every engine give: the graph meets ``acc32`` and lies in
    ``wai-ops/1-npu``, and after the target's rewrites and mappings every node has an exact
    form in the target's format (computed from the target's description; no compiler runs).

    Raises
    ------
    Refusal
        When the graph is refused at load as a ``wai-ops/1`` graph at all (§10.5, against
        ``acc64``): that is the file's refusal, not the target's.
    """
    load(data, profile="acc64", subset="full", name=name)
    try:
        exp = export(data, target, name)
        if target.fmt == "tosa":
            probes = probe_inputs(exp.graph)
            if probes:
                exp.tosa([tuple(x.shape) for x in probes[0][0]])
    except Refusal as r:   # the verdict against the target's profile and subset
        return Fit(False, [f"{r.where}: {r.detail}"])
    except ExportError as e:
        return Fit(False, [str(e)])
    return Fit(True, [], exp)


def self_check(exp: Export) -> tuple[int, str | None]:
    """Run the model on onnxruntime against the reference on the source graph, at the ends of
    the declared ranges (:func:`probe_inputs`): the number of decodes compared, and what
    differed first (``None`` when every output is bit-exact)."""
    import onnxruntime as ort

    from .engines import OutputMismatch, in_order, run_session, storage_dtype

    session = ort.InferenceSession(exp.model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    probes = probe_inputs(exp.graph)
    for n, (inputs, scalars) in enumerate(probes):
        want = decode(exp.source, inputs, scalars)
        try:
            got = in_order(exp.graph, run_session(exp.graph, session, inputs, scalars,
                                                  dtype=storage_dtype(exp.model)),
                           inputs, scalars)
        except OutputMismatch as e:
            return len(probes), f"decode {n}: {e}"
        for k, (a, b) in enumerate(zip(want, got, strict=True)):
            if not (a == b).all():
                return len(probes), f"decode {n}, output {k} differs from the reference"
    return len(probes), None


def _sizes(g: Graph) -> list[tuple[int, int]]:
    """Input sizes to probe with: the declared ones, else a few small ones."""
    if g.declares_sizes:
        return [(g.inputs[0].max_h, g.inputs[0].max_w)]
    return [(7, 5), (4, 4), (1, 1), (2, 3), (8, 8), (16, 16)]


def probe_inputs(g: Graph, seed: int = 0, sizes=None):
    """Decodes at the ends of every declared range (all low, all high, alternating, random)
    on sizes the graph plans (``sizes``, ``[(H, W)]``, or a few of its own):
    ``[(inputs, scalars)]``, data and state inputs in table order."""
    rng = np.random.default_rng(seed)
    out = []
    for h, w in sizes or _sizes(g):
        shapes = [(g.tensor(i.tensor).channels,
                   i.max_h if g.declares_sizes and not sizes else h,
                   i.max_w if g.declares_sizes and not sizes else w) for i in g.inputs]
        for pick in ("lo", "hi", "alternate", "random"):
            scalars = [s.lo if pick in ("lo", "alternate") else s.hi if pick == "hi"
                       else int(rng.integers(s.lo, s.hi + 1)) for s in g.scalars]
            try:
                run_plan(g, shapes, scalars)
            except Refusal:
                continue
            tensors = []
            for inp, shape in zip(g.inputs, shapes):
                rec = g.tensor(inp.tensor)
                if pick == "random":
                    x = rng.integers(rec.lo, rec.hi, size=shape, endpoint=True)
                else:
                    x = np.full(shape, rec.lo if pick == "lo" else rec.hi, dtype=np.int64)
                    if pick == "alternate":
                        x.reshape(-1)[::2] = rec.lo
                tensors.append(x)
            out.append((tensors, scalars))
        if out:
            return out
    return out
