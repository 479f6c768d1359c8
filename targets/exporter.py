"""Export for a target: load against the target's profile and subset, rewrite for the target,
build the model in the target's format (:mod:`waiexport.targets.format`), and check it
against the reference at the ends of the declared ranges."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
from waiexport.reference import decode
from waiexport.rewrites.manager import RewriteOutcome, rewrite_for

from waiexport import __version__
from waiexport.certificate import Member, certificate_bytes, certify
from waiexport.descriptions import Target
from waiexport.graph import Graph
from waiexport.load import admit, load
from waiexport.plan import run_plan
from waiexport.probes import probe_inputs
from waiexport.refusal import Refusal

from .errors import DoesNotFit, EngineFailure, ExportError
from .forked import judged
from .format import Format, Model, format_of, graph_outputs
from .outputs import OutputMismatch, in_order

__all__ = ["Export", "Fit", "export", "fit", "self_check", "check_size", "DoesNotFit"]

#: The sizes a static model's self-check tries, smallest area first (:func:`check_size`):
#: the reference model's time grows with the area, so the smallest that shows every kind of
#: output position wins. Not only squares: a strided convolution's last window falls by
#: each side's residue, and a model's two sides may differ in it.
CHECK_SIZES = tuple(
    sorted(
        ((h, w) for h in range(2, 33) for w in range(2, 33)),
        key=lambda s: (s[0] * s[1], abs(s[0] - s[1]), s),
    )
)


@dataclass
class Export:
    """An exported graph with what it came from: the target, its format, the rewrite
    outcome, the provenance metadata, the source graph, and its models (one, or one per
    decode shape for a static format), built when first asked for."""

    target: Target
    format: Format
    outcome: RewriteOutcome
    metadata: dict
    source: Graph
    prepared: object = None  # what the format's prepare made (its one model, where it has one)
    _models: dict = field(default_factory=dict)

    @property
    def graph(self) -> Graph:
        return self.outcome.graph

    def built(self, shapes=None) -> Model:
        """The model for these input shapes (``(C, H, W)`` each, state inputs included; any
        shapes for a format whose shapes are not static)."""
        key = tuple(map(tuple, shapes)) if self.format.static else None
        if key not in self._models:
            self._models[key] = self.format.build(self, key)
        return self._models[key]

    @property
    def rewrites(self) -> list[dict]:
        """The rewrites applied, each as ``rewrite --json`` prints a change."""
        return [c.as_json() for c in self.outcome.changes if c.applied]

    def whole(self) -> "Export":
        """This export (an export kept on disk, :class:`~.stored.Stored`, makes itself)."""
        return self


def export(
    source: bytes | Member,
    target: Target,
    name: str = "graph",
    outcome: RewriteOutcome | None = None,
    chosen: dict | None = None,
) -> Export:
    """Export the WHG1 file ``source`` (its bytes, or the member that loaded them: it is not
    read or bounded again) for ``target``, with the kernels its runtime's probes chose
    (``chosen``, by the format's ``choices``; where a probe is absent the format's own
    default); ``outcome`` is the rewrite of ``source`` for ``target`` where the caller made
    it already. The export reads the file
    once and makes one bounds pass (the rewrites re-derive only what they change).

    Raises
    ------
    Refusal
        At load (§10.5), or ``model_mismatch`` when the graph does not meet the target's
        profile or lies outside its subset (§9.2).
    ExportError
        When an operator cannot be mapped onto the target exactly.
    EngineUnavailable
        When what the target's format needs is not installed (naming the extra).
    """
    fmt = format_of(target)
    fmt.require()
    if isinstance(source, Member):
        member = admit(source, profile=target.profile, subset=target.subset)
    else:
        member = load(source, profile=target.profile, subset=target.subset, name=name)
    outcome = outcome or rewrite_for(member, target, name)
    unmapped = [
        f"{outcome.label(i)} ({op}): {limit}"
        for i, op, limits in outcome.remaining
        for limit in limits
        if not limit.mapped
    ]
    if unmapped:
        raise DoesNotFit(f"does not fit {target.name}: " + "; ".join(unmapped))
    metadata = {
        "wai.whg1_sha256": hashlib.sha256(member.data).hexdigest(),
        "wai.rewritten_sha256": hashlib.sha256(outcome.data).hexdigest(),
        "wai.certificate_sha256": hashlib.sha256(certificate_bytes(certify([member]))).hexdigest(),
        "wai.target": target.name,
        "wai.tool": f"waiexport {__version__}",
    }
    exp = Export(target, fmt, outcome, metadata, member.graph)
    exp.format.prepare(exp, chosen or {})
    return exp


@dataclass
class Fit:
    """Whether a graph fits a target, why not, and the export when it does."""

    fits: bool
    reasons: list
    export: Export | None = None


def fit(
    source: bytes | Member,
    target: Target,
    name: str = "graph",
    outcome: RewriteOutcome | None = None,
) -> Fit:
    """The one answer to "does this graph fit this target", which ``rewrite``, ``export``,
    ``check --target`` and every engine give: the graph meets the target's profile and lies
    in its subset, and after the target's rewrites and mappings every node has an exact form
    in the target's format (a static format's model is built on the probe's shapes; no
    compiler runs).

    Raises
    ------
    Refusal
        When the graph is refused at load as a ``wai-ops/1`` graph at all (§10.5, against
        ``acc64``): that is the file's refusal, not the target's.
    """
    member = (
        admit(source, profile="acc64", subset="full")
        if isinstance(source, Member)
        else load(source, profile="acc64", subset="full", name=name)
    )
    try:
        exp = export(member, target, name, outcome=outcome)
        if exp.format.static:
            probes = probe_inputs(exp.graph)
            if probes:
                exp.built([x.shape for x in probes[0][0]])
    except Refusal as r:  # the verdict against the target's profile and subset
        return Fit(False, [f"{r.where}: {r.detail}"])
    except ExportError as e:
        return Fit(False, [str(e)])
    return Fit(True, [], exp)


def self_check(exp: Export, sizes=None, engine=None, progress=None) -> tuple[int, str | None]:
    """Run the model on its format's judge (onnxruntime's CPU provider, the TOSA reference
    model), or on ``engine`` (the target's own runtime, which exports the graph for the same
    target itself), against the reference on the source graph, at the ends of the declared
    ranges (:func:`~waiexport.probes.probe_inputs`, on ``sizes`` when given): the number of
    decodes compared, and what differed first (``None`` when every output is bit-exact);
    ``progress(n)`` is told the number of decodes, then called after each. A judge that
    allows it (``Format.forks``) runs the decodes side by side while the reference runs
    here."""
    fmt, g = exp.format, exp.graph
    probes = probe_inputs(g, sizes=sizes)
    tick = progress(len(probes)) if progress else None
    try:
        loaded = engine.load(exp.outcome.member.data) if engine is not None else None
    except EngineFailure as e:
        return len(probes), f"at load: {e}"
    runs = (
        []
        if loaded is not None
        else [
            (model, fmt.feed(g, model, inputs, scalars))
            for inputs, scalars in probes
            for model in [exp.built([x.shape for x in inputs])]
        ]
    )
    with judged(fmt, runs) as judge:
        for n, (inputs, scalars) in enumerate(probes):
            want = decode(exp.source, inputs, scalars)
            try:
                got = (
                    loaded.decode(inputs, scalars)
                    if loaded is not None
                    else in_order(g, graph_outputs(g, fmt, judge[n]()), inputs, scalars)
                )
            except (OutputMismatch, EngineFailure) as e:
                return len(probes), f"decode {n}: {e}"
            if len(got) != len(want):
                return len(probes), (
                    f"decode {n}: {len(got)} outputs, where the graph has {len(want)}"
                )
            for k, (a, b) in enumerate(zip(want, got)):
                if not np.array_equal(a, b):  # shapes too: one value broadcast is not all
                    return len(probes), f"decode {n}, output {k} differs from the reference"
            if tick:
                tick(1)
    return len(probes), None


def check_size(g: Graph, size: tuple[int, int]) -> tuple[int, int]:
    """The size a static model of ``g`` at ``size`` is self-checked at: the first of
    :data:`CHECK_SIZES` (else ``size`` itself) no larger than ``size`` at which the graph
    plans with its scalars at each end where it plans so at ``size`` (so the self-check runs
    every decode there that it would run at ``size``) and every convolution has every kind
    of output position it has at ``size`` (:func:`_kinds`: its padded edges, its interior,
    and at a stride each phase and each way its last window falls), so no position of the
    model at ``size`` sums its taps in a way the check did not see. A model at another size
    differs from the checked one only in its shapes and the constants that follow from
    them."""

    def planned(h: int, w: int, scalars: tuple) -> dict | None:
        try:
            return run_plan(
                g, [(g.tensor(i.tensor).channels, h, w) for i in g.inputs], list(scalars)
            )
        except Refusal:
            return None

    convs = [op for op in g.ops if op.name in ("conv", "conv_transpose")]
    both = dict.fromkeys((tuple(s.lo for s in g.scalars), tuple(s.hi for s in g.scalars)))
    ends = {
        scalars: [_kinds(op, plan) for op in convs]
        for scalars in both
        if (plan := planned(*size, scalars)) is not None
    }
    for h, w in [s for s in CHECK_SIZES if s[0] <= size[0] and s[1] <= size[1]]:
        plans = {scalars: planned(h, w, scalars) for scalars in ends}
        if ends and all(
            p is not None and [_kinds(op, p) for op in convs] == ends[scalars]
            for scalars, p in plans.items()
        ):
            return h, w
    return size


def _kinds(op, plan: dict) -> tuple[frozenset, frozenset]:
    """The kinds of output position of a convolution on the shapes of ``plan``, down and
    across: the set of taps each output reads, which inputs exist deciding (§5.2: ``conv``
    output ``y`` reads input ``y·s − p + i`` through tap ``i``; §5.3: ``conv_transpose``
    output ``o`` reads input ``u`` through tap ``o + p − u·s``)."""
    p = op.params
    (_, h, w), (_, ho, wo) = plan[op.inputs[0]], plan[op.outputs[0]]

    def axis(k: int, s: int, pad: int, n: int, outs: int) -> frozenset:
        if op.name == "conv":
            return frozenset(
                frozenset(i for i in range(k) if 0 <= y * s - pad + i < n) for y in range(outs)
            )
        return frozenset(
            frozenset(i for i in range(k) if (o + pad - i) % s == 0 and 0 <= (o + pad - i) // s < n)
            for o in range(outs)
        )

    return axis(p.kh, p.sh, p.ph, h, ho), axis(p.kw, p.sw, p.pw, w, wo)
