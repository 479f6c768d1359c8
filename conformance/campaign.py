"""A fuzz campaign against an engine: random valid graphs (:mod:`.random_graphs`, the one
generator of the property tests and the differential benchmark), each decoded at its probe
inputs on the reference and on the engine as ``validate`` runs a vector; each outcome
classified (agree, declined, wrong value, refusal mismatch, crash, timeout); each difference
reduced to one operator and smaller sides where it still shows, and kept once per signature
(engine, operator, class, diagnosis) as a bundle a bug report needs: the reduced graph and its
vector, what was expected and what came, the engine's packages, the CPU, and a ``repro.sh``
of one command.

Deterministic from the seed: graph ``k`` of a campaign seeded ``s`` is drawn from
``random.Random(f"{s}:{k}")``, so shards of the indices (``k mod N``) merge into the
single run's bundles and counts."""

from __future__ import annotations

import hashlib
import platform
import random
import re
import time
from dataclasses import dataclass, field
from typing import Callable

from waiexport.bounds import certify_graph
from waiexport.builder import GraphBuilder
from waiexport.certificate import Verdict
from waiexport.graph import Graph
from waiexport.jsonio import ascii_text
from waiexport.load import read_member
from waiexport.optable import info
from waiexport.params import Operand
from waiexport.reference import decode
from waiexport.refusal import Refusal
from waiexport.whg1 import write

from .random_graphs import MID, NARROW, PARAMS, Seeded, case, graph, requantisation, sequence
from .validate import json_diff, validate_vector
from .vectors import make_vector

__all__ = ["Bug", "Campaign", "draw", "classify", "reduce", "hunt", "CLASSES"]

#: Each outcome's class, as the summary counts them: ``unclaimed`` is a model the engine's
#: own probes already disown (no decode of it can pass), counted and kept as no bug.
CLASSES = ("agree", "declined", "unclaimed", "wrong value", "refusal mismatch", "crash", "timeout")


def draw(
    seed: int, k: int, profile: str, npu: bool, longest: int = 6, eight_bit: bool = False
) -> tuple | None:
    """Graph ``k`` of the campaign seeded ``seed`` and its decodes (a sequence), or ``None``
    where the draw does not load or meet the profile (and, for an engine of the npu subset,
    ``wai-ops/1-npu``). In turn: a requantisation at its rounding ties (every rounding, bias
    placement, shift and multiplier), one operator of those admitted with values anywhere in
    their range, and a chain of up to ``longest`` of them as runtimes fuse them. With
    ``eight_bit`` (a target whose MAC array takes 8 bits), the requantisations and the single
    operators take what such a unit takes: int8 values, shifts to 24, powers of two."""
    c = Seeded(random.Random(f"{seed}:{k}"))
    ops = [
        n
        for n in PARAMS
        if (profile == "acc64" or info(n).i32) and (not npu or info(n).npu != "no")
    ]
    ranges = NARROW if profile == "acc32" else MID
    try:
        if k % 3 == 0:
            g, decodes = requantisation(c, eight_bit)
        elif k % 3 == 1:
            r = dict(ranges, values=(-128, 127)) if eight_bit else ranges
            g, inputs, scalars = case(c, c.pick(ops), r)
            decodes = [(inputs, scalars)] + sequence(g, seed=k, steps=3)
        else:
            g = graph(c, profile, longest, ops)
            decodes = [] if g is None else sequence(g, seed=k, steps=4)
    except (Refusal, ValueError):
        return None
    if g is None or not decodes:
        return None
    verdict = Verdict.over([read_member(write(g))])
    if not verdict.meets(profile) or (npu and not verdict.npu):
        return None
    if any(i.kind == "state" for i in g.inputs):
        return g, decodes
    return g, decodes[:4]


def _vector(g: Graph, decodes: list, vid: str) -> dict:
    v = make_vector(vid, write(g), decodes)
    v["graph_bytes"] = bytes.fromhex(v["graph"])
    return v


def classify(engine, g: Graph, decodes: list, vid: str = "fuzz"):
    """``g`` on ``engine`` at ``decodes``, as ``validate --locate`` runs a vector: the class
    (:data:`CLASSES`), the outcome and the vector."""
    v = _vector(g, decodes, vid)
    kept = {**v, "decodes": [dict(d) for d in v["decodes"]]}  # validate caches into its own
    del kept["graph_bytes"]
    out = validate_vector(engine, "fuzz", v, locate=True)
    cls = {
        "pass": "agree",
        "declined": "declined",
        "skip": "declined",
        "crashed": "crash",
        "timed_out": "timeout",
    }.get(out.status)
    if cls is None:  # fail, or ran elsewhere
        cls = "wrong value" if out.diffs else "refusal mismatch"
        if not out.diffs and out.reason and out.reason == _unclaimable(engine, v):
            cls = "unclaimed"
    return cls, out, kept


def _unclaimable(engine, v: dict) -> str | None:
    """Why no decode of the vector's model can pass on ``engine`` (its probes), if so."""
    try:
        return engine.load(v["graph_bytes"]).unclaimable
    except Exception:  # the engine's own refusal or error: validate has said it already
        return None


def _located(out) -> dict:
    """What ``--locate`` found for the first difference of ``out``, or ``{}``."""
    for d in out.diffs:
        return (d.get("located") or {}).get("found") or {}
    return {}


def _alone(g: Graph, op, decode_: tuple) -> tuple[Graph, tuple] | None:
    """``op`` of ``g`` alone: a graph whose data inputs are its input tensors (each at its
    certified interval, checked) and whose outputs are its outputs, with the decode that
    feeds it what the reference computes there; ``None`` for one that reads a scalar or does
    not load alone."""
    inputs, scalars = decode_
    if any(i.kind == "state" for i in g.inputs) or any(
        isinstance(v, Operand) and v.kind == 1 for v in vars(op.params).values()
    ):
        return None  # a state's value comes from earlier decodes; a scalar sizes a window
    try:
        kept = decode(g, inputs, scalars, keep=True)
        bounds = certify_graph(g).tensors
        b = GraphBuilder()
        names = {}
        for t in dict.fromkeys(op.inputs):
            lo, hi = bounds[t]
            _, h, w = kept[t].shape
            names[t] = b.input(g.tensor(t).channels, int(lo), int(hi), max_h=h, max_w=w)
        recs = [g.tensor(t) for t in op.outputs]
        out = b.op(
            op.name,
            [names[t] for t in op.inputs],
            op.params,
            policy=recs[0].policy,
            lo=recs[0].lo,
            hi=recs[0].hi,
            exponent=recs[0].exponent,
            channels=[r.channels for r in recs],
        )
        b.output(*(out if isinstance(out, tuple) else (out,)))
        one = b.build()
    except (Refusal, ValueError, KeyError):
        return None
    return one, ([kept[t] for t in dict.fromkeys(op.inputs)], [])


def _smaller(g: Graph, decode_: tuple) -> list:
    """Candidates with the first data input's sides halved (each input cropped alike from
    its top-left corner, and from its middle)."""
    inputs, scalars = decode_
    _, h, w = inputs[0].shape
    out = []
    for nh, nw in ((max(1, h // 2), w), (h, max(1, w // 2))):
        if (nh, nw) == (h, w):
            continue
        for y0, x0 in ((0, 0), ((h - nh) // 2, (w - nw) // 2)):
            out.append(([x[:, y0 : y0 + nh, x0 : x0 + nw] for x in inputs], scalars))
    return out


def reduce(
    engine, g: Graph, decodes: list, cls: str, found: dict, vid: str
) -> tuple[Graph, list, tuple]:
    """``g`` and its decodes (a sequence, the last one showing class ``cls`` on ``engine``)
    reduced while it still shows: the operator ``--locate`` found (``found``) alone at the
    last decode's values (else the first operator alone that shows it), then the sides
    halved while it shows; ``g`` and ``decodes`` as they were where no operator alone shows
    it. With them, :func:`classify`'s answer for what is returned (as vector ``vid``)."""
    order = sorted(g.ops, key=lambda op: op.index != found.get("operator"))
    for op in order:
        one = _alone(g, op, decodes[-1])
        shown = None if one is None else classify(engine, one[0], [one[1]], vid)
        if shown is not None and shown[0] == cls:
            g, decode_ = one
            break
    else:
        return g, decodes, classify(engine, g, decodes, vid)
    shrinking = True
    while shrinking:
        shrinking = False
        for smaller in _smaller(g, decode_):
            try:
                tried = classify(engine, g, [smaller], vid)
            except (Refusal, ValueError):
                continue
            if tried[0] == cls:
                decode_, shown, shrinking = smaller, tried, True
                break
    return g, [decode_], shown


@dataclass
class Bug:
    """One distinct bug: its signature, how often it showed, the first graph (by index)
    that showed it, and the reduced graph, vector and outcome."""

    signature: tuple
    count: int
    first: int
    vector: dict
    outcome: dict

    @property
    def name(self) -> str:
        """The bundle's folder: the engine, operator and class, and a digest of the whole
        signature (two diagnoses of one operator are two bundles)."""
        engine, op, cls, _ = self.signature
        digest = hashlib.sha256(repr(self.signature).encode()).hexdigest()[:8]
        return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{engine}-{op}-{cls}-{digest}")


@dataclass
class Campaign:
    """A campaign's result: per class, how many graphs; the distinct bugs by signature; how
    many graphs were drawn and how long it took."""

    engine: str
    seed: int
    counts: dict = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    target: str | None = None  # the target whose models the engine ran, where not its own
    bugs: dict = field(default_factory=dict)
    graphs: int = 0
    seconds: float = 0.0

    def add(self, k: int, cls: str, signature: tuple | None, bug) -> None:
        self.counts[cls] += 1
        self.graphs += 1
        if signature is None:
            return
        known = self.bugs.get(signature)
        if known is None:
            self.bugs[signature] = bug()
        else:
            known.count += 1
            if k < known.first:  # the earliest graph's reduction, whatever the order
                self.bugs[signature] = bug()
                self.bugs[signature].count = known.count

    def merged(self, other: Campaign) -> Campaign:
        """This campaign and ``other`` (another shard of the same seed) as one."""
        out = Campaign(
            self.engine, self.seed, dict(self.counts), target=self.target, bugs=dict(self.bugs)
        )
        out.graphs, out.seconds = self.graphs + other.graphs, self.seconds + other.seconds
        for c, n in other.counts.items():
            out.counts[c] += n
        for sig, bug in other.bugs.items():
            mine = out.bugs.get(sig)
            if mine is None:
                out.bugs[sig] = bug
            else:
                first = bug if bug.first < mine.first else mine
                out.bugs[sig] = Bug(
                    sig, mine.count + bug.count, first.first, first.vector, first.outcome
                )
        return out


def _outcome_json(out) -> dict:
    """An outcome as a report's vector holds it."""
    return {
        "status": out.status,
        "reason": ascii_text(out.reason),
        "diffs": [json_diff(d) for d in out.diffs],
    }


def hunt(
    engine,
    indices,
    seed: int = 0,
    until: float | None = None,
    progress: Callable[[int, float], None] | None = None,
    target: str | None = None,
) -> Campaign:
    """The campaign of graphs ``indices`` (in turn; until the clock passes ``until`` where
    given) on ``engine`` (running ``target``'s models, where it names one): each drawn,
    decoded at its probe inputs, classified, and each difference reduced and kept by
    signature."""
    name = getattr(engine, "name", None) or type(engine).__name__
    camp = Campaign(name, seed, target=target)
    start = time.monotonic()
    npu = getattr(engine, "subset", "full") == "npu"
    eight_bit = getattr(getattr(engine, "target", None), "mac_bits", 0) == 8
    for k in indices:
        if until is not None and time.monotonic() > until:
            break
        drawn = draw(seed, k, getattr(engine, "profile", "acc64"), npu, eight_bit=eight_bit)
        if drawn is None:
            continue
        g, decodes = drawn
        vid = f"fuzz_{seed}_{k}"
        cls, out, _ = classify(engine, g, decodes, vid)
        signature = None
        if cls not in ("agree", "declined", "unclaimed"):
            bad = next((int(d["decode"]) for d in out.diffs), _failing_decode(out.reason))
            small, _, (_, rout, rvec) = reduce(
                engine, g, decodes[: bad + 1], cls, _located(out), vid
            )
            found = _located(rout)
            op = found.get("op") or (small.ops[0].name if len(small.ops) == 1 else "graph")
            signature = (name, op, cls, found.get("diagnosis") or "")

            def bug(sig=signature, v=rvec, o=rout, k=k):
                return Bug(sig, 1, k, v, _outcome_json(o))

        camp.add(k, cls, signature, bug if signature else None)
        if progress:
            progress(camp.graphs, time.monotonic() - start)
    camp.seconds = time.monotonic() - start
    return camp


def _failing_decode(reason: str) -> int:
    """The decode a reason names (``decode K: …``), else 0."""
    m = re.match(r"decode (\d+)", reason or "")
    return int(m.group(1)) if m else 0


def cpu() -> str:
    """This machine's CPU, in words, for a bundle."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
