"""Validation of an engine against vector files (§14): every vector whose profiles include the
engine's profile and whose graph lies in the engine's subset, bit for bit, refusals included;
integer-first diffs for what fails; where each vector ran; and the report, as a table for a
person and as canonical JSON (§8.5) for a program."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from waiexport.reference import Decoder
from waiexport.reference.stage import ELSEWHERE, StageRefusal
from waiexport.targets.engines.base import described, machine
from waiexport.targets.errors import (
    EngineCrashed,
    EngineFailure,
    EngineTimedOut,
    ExportError,
    NotForEngine,
)

from waiexport.certificate import Verdict
from waiexport.jsonio import ascii_text, dumps, plain
from waiexport.load import read_member
from waiexport.refusal import Refusal

from .locate import locate as find_first
from .locate import sentence
from .vectors import parse_expect, read_vectors, vector_inputs

__all__ = [
    "VectorOutcome",
    "validate_vector",
    "validate_stage",
    "validate",
    "read_all",
    "diff",
    "claim",
    "files_under",
    "report",
    "render",
    "STATUSES",
]

#: Each status a vector can end in, and how the report counts it: ``declined`` is a vector
#: of the engine's profile and subset that the engine (its export, its runtime) could not
#: take; ``skip``, one outside its profile or subset, or a stage vector of an engine that runs
#: models.
STATUSES = {
    "pass": "passed",
    "fail": "failed",
    "elsewhere": "ran elsewhere",
    "crashed": "crashed",
    "timed_out": "timed out",
    "declined": "declined",
    "skip": "not for this engine",
}
#: The statuses that allow no claim.
NO_CLAIM = ("fail", "elsewhere", "crashed", "timed_out")


@dataclass
class VectorOutcome:
    """One vector on one engine: ``status`` is one of :data:`STATUSES` with the reason, for a
    failing output the diff, and where the engine placed the model's nodes when it says."""

    file: str
    vid: str
    status: str
    reason: str = ""
    diffs: list = field(default_factory=list)
    placement: dict | None = None


def diff(expected: np.ndarray, got: np.ndarray) -> dict:
    """What an integer comparator says of two tensors: the first differing CHW index with both
    values, how many elements differ, the largest difference, and how many differ by each
    amount (``got − expected``)."""
    if expected.shape != got.shape:
        return {"shape": [list(expected.shape), list(got.shape)]}
    e, g = expected.astype(object).reshape(-1), got.astype(object).reshape(-1)
    if (e == g).all():  # Python integers compared, in one pass
        return {}
    delta = [int(b) - int(a) for a, b in zip(e, g)]
    bad = [i for i, d in enumerate(delta) if d]
    if not bad:
        return {}
    first = bad[0]
    c, h, w = expected.shape
    return {
        "first": [first // (h * w), first // w % h, first % w],
        "expected": int(e[first]),
        "got": int(g[first]),
        "count": len(bad),
        "largest": max(abs(delta[i]) for i in bad),
        "histogram": dict(sorted(Counter(delta[i] for i in bad).items())),
    }


def _elsewhere(engine, placement: dict | None) -> str | None:
    """Why a vector did not run wholly on the engine's own provider, or ``None``."""
    own = getattr(engine, "provider", None)
    if not placement or own is None:
        return None
    total = sum(placement.values())
    other = {p: n for p, n in placement.items() if p != own}
    if not other:
        return None
    return "; ".join(f"ran on {p}: {n} of {total} nodes" for p, n in sorted(other.items()))


def _first_difference(want, got, where: str = "") -> str:
    """Where two stage results first differ, with both values."""
    if isinstance(want, dict) and isinstance(got, dict) and set(want) == set(got):
        return next(
            (
                _first_difference(want[k], got[k], f"{where}.{k}".lstrip("."))
                for k in sorted(want)
                if want[k] != got[k]
            ),
            "",
        )
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        return next(
            (
                _first_difference(a, b, f"{where}[{i}]")
                for i, (a, b) in enumerate(zip(want, got))
                if a != b
            ),
            "",
        )
    return f"{where or 'expect'}: expected {str(want)[:80]}, got {str(got)[:80]}"


def validate_stage(engine, file: str, v: dict) -> VectorOutcome:
    """Run one stage vector (§14.1) on an engine's optional ``stage(op, in, modes)`` hook,
    which returns the operator's ``expect`` or raises ``StageRefusal``; an engine without
    the hook, or an operator defined in a text this toolchain does not hold, is "not for
    this engine"."""
    op, st = v["op"], v["stage"]
    if op in ELSEWHERE:
        return VectorOutcome(
            file,
            v["id"],
            "skip",
            f"{op} is defined in {ELSEWHERE[op]}, which this toolchain does not implement",
        )
    hook = getattr(engine, "stage", None)
    if hook is None:
        return VectorOutcome(file, v["id"], "skip", "the engine runs no stage operators")
    try:
        got = hook(op, st["in"], st["modes"])
    except StageRefusal as r:
        got = {"at": r.at, "refuse": r.code}
    except EngineFailure as e:
        return VectorOutcome(file, v["id"], "fail", str(e))
    except (TypeError, ValueError, KeyError, IndexError) as e:
        return VectorOutcome(
            file,
            v["id"],
            "fail",
            f"the operator could not read this in: {type(e).__name__}: {str(e)[:120]}",
        )
    try:
        got = plain(got, "result")
    except TypeError as e:  # a value of another type; a list inside itself
        return VectorOutcome(file, v["id"], "fail", f"its result is not a stage result: {e}")
    if dumps(got, strict=False) == dumps(st["expect"], strict=False):
        return VectorOutcome(file, v["id"], "pass")
    return VectorOutcome(
        file,
        v["id"],
        "fail",
        _first_difference(st["expect"], got)
        or "the values expected, of other types (a boolean for an integer)",
    )


def _broke(file: str, vid: str, e: EngineFailure, where: str = "") -> VectorOutcome:
    """A vector whose engine crashed or timed out (its own result), or failed."""
    status = (
        "crashed"
        if isinstance(e, EngineCrashed)
        else "timed_out"
        if isinstance(e, EngineTimedOut)
        else "fail"
    )
    return VectorOutcome(file, vid, status, f"{where}{e}")


def validate_vector(engine, file: str, v: dict, locate: bool = False) -> VectorOutcome:
    """Run one vector on ``engine`` (see :mod:`waiexport.targets.engines` for the interface);
    with ``locate``, a differing output is traced to the first operator that differs. A
    runtime that crashes or times out is that vector's result; the caller goes on."""
    try:
        return _validate_vector(engine, file, v, locate)
    except EngineFailure as e:  # at load, or in locating
        return _broke(file, v["id"], e)


def _validate_vector(engine, file: str, v: dict, locate: bool) -> VectorOutcome:
    if "stage" in v:
        return validate_stage(engine, file, v)
    if engine.profile not in v["profiles"]:
        return VectorOutcome(file, v["id"], "skip", f"profiles {', '.join(v['profiles'])}")
    data = v["graph_bytes"]
    if v["load"] != "ok":
        try:
            engine.load(data)
        except Refusal as r:
            if r.code == v["load"]:
                return VectorOutcome(file, v["id"], "pass")
            return VectorOutcome(
                file, v["id"], "fail", f"load refused with {r.code}, not {v['load']}"
            )
        except (ExportError, NotForEngine):
            return VectorOutcome(file, v["id"], "fail", f"not refused with {v['load']} at load")
        return VectorOutcome(file, v["id"], "fail", f"loaded a graph refused with {v['load']}")
    # this toolchain's reading of the graph, not the engine's, decides the subset and is
    # what the engine's outputs are checked against
    member = read_member(data)
    if engine.subset == "npu" and not Verdict.over([member]).npu:
        return VectorOutcome(file, v["id"], "skip", "outside wai-ops/1-npu")
    try:
        loaded = engine.load(data)
    except Refusal as r:
        return VectorOutcome(file, v["id"], "fail", f"refused at load with {r.code}: {r}")
    except (ExportError, NotForEngine) as e:
        return VectorOutcome(file, v["id"], "declined", str(e))
    g = member.graph
    seq = replace(loaded, graph=g).sequence()
    out = VectorOutcome(file, v["id"], "pass")
    for k, ((inputs, scalars), d) in enumerate(zip(vector_inputs(v, g), v["decodes"])):
        kind, want = parse_expect(d)
        try:
            every_input = seq.inputs(inputs)
            got = ("outputs", seq.step(inputs, scalars))
        except Refusal as r:
            got = ("refuse", r.code)
        except EngineFailure as e:
            broke = _broke(file, v["id"], e, f"decode {k}: ")
            out.status, out.reason = broke.status, broke.reason
            break
        except (ExportError, NotForEngine) as e:  # a runtime that declines a decode shape
            out.status, out.reason = "declined", f"decode {k}: {e}"
            break
        if kind == "refuse" or got[0] == "refuse":
            if got != (kind, want):
                out.status = "fail"
                expected = f"{kind} {want if kind == 'refuse' else ''}".rstrip()
                out.reason = (
                    f"decode {k}: expected {expected}"
                    + f", got {got[0]} {got[1] if got[0] == 'refuse' else ''}".rstrip()
                )
            continue
        for j, (a, b) in enumerate(zip(want, got[1], strict=True)):
            d_ = diff(a, np.asarray(b))
            if d_:
                out.status = "fail"
                out.reason = out.reason or f"decode {k} output {j} differs" + (
                    "; the engine agrees with this toolchain's reference here, so the vector "
                    "itself may be wrong (waiexport vectors check would tell)"
                    if _reference_agrees(v, g, k, j, b)
                    else ""
                )
                if locate:
                    found = find_first(loaded, every_input, scalars)
                    d_["located"] = {"found": found, "sentence": sentence(found)}
                out.diffs.append({"decode": k, "output": j, **d_})
    if loaded.unclaimable:
        out.reason = f"{out.reason}; {loaded.unclaimable}" if out.reason else loaded.unclaimable
        out.status = "fail" if out.status == "pass" else out.status
    if loaded.placement is not None:
        out.placement = loaded.placement()
        moved = _elsewhere(engine, out.placement)
        if moved and out.status == "pass":
            out.status, out.reason = "elsewhere", moved
    return out


def _reference_agrees(v: dict, g, k: int, j: int, got) -> bool:
    """Whether the reference, replaying the vector's decodes to ``k``, gives ``got`` for
    output ``j``: then the vector's expectation, not the engine, is what differs."""
    seq = Decoder(g)
    try:
        for n, (inputs, scalars) in enumerate(vector_inputs(v, g)):
            outs = seq.step(inputs, scalars)
            if n == k:
                return diff(outs[j], np.asarray(got)) == {}
    except Refusal:
        return False
    return False


def files_under(paths: list[Path]) -> list[Path]:
    """The ``.jsonl`` files named or under the folders named, in order."""
    files = []
    for p in paths:
        files += sorted(p.rglob("*.jsonl")) if p.is_dir() else [p]
    return files


def read_all(files: list[Path]) -> list[tuple[Path, list[dict]]]:
    """Every file's vectors, each file read and checked before any vector runs; ``BadInput``
    names the file and line of the first that is not a vector file."""
    return [(path, read_vectors(path)) for path in files]


def validate(engine, files, progress=None, locate: bool = False) -> list[VectorOutcome]:
    """Every vector of ``files`` (paths, or what :func:`read_all` made of them) on
    ``engine``; ``progress(n)`` is told as vectors finish."""
    read = files if files and isinstance(files[0], tuple) else read_all(files)
    results = []
    for path, vectors in read:
        for v in vectors:
            results.append(validate_vector(engine, path.stem, v, locate))
            if progress:
                progress(1)
    return results


def claim(engine, results: list[VectorOutcome]) -> dict | None:
    """What a pass supports, or ``None`` when a vector failed, ran elsewhere, crashed or
    timed out, or none passed: evidence for the engine's subset and profile where it ran, not
    a full-profile conformance claim (§1, §12), naming what ran (the engine's packages,
    versions and devices), how many applicable vectors ran and passed, and, by file, what
    the engine declined and why: the part of its subset the claim does not cover."""
    if any(r.status in NO_CLAIM for r in results) or not any(r.status == "pass" for r in results):
        return None
    ran = (
        described(engine.describe())
        if hasattr(engine, "describe")
        else {"packages": "not reported by the engine"}
    )
    subset = (
        "wai-ops/1-npu"
        if engine.subset == "npu"
        else "wai-ops/1-i32"
        if engine.profile == "acc32"
        else "wai-ops/1"
    )
    ran = {"machine": ascii_text(machine()), "where": "on this machine", **ran}
    where = ran.pop("where")
    declined: dict = {}
    for r in results:
        if r.status == "declined":
            declined.setdefault(r.file, {"vectors": 0, "first_reason": ascii_text(r.reason)})
            declined[r.file]["vectors"] += 1
    passed = sum(r.status == "pass" for r in results)
    applicable = passed + sum(r.status == "declined" for r in results)
    target = getattr(getattr(engine, "target", None), "name", getattr(engine, "target", None))
    scope = f"{passed} of the {applicable} vectors of {subset} tagged {engine.profile}" + (
        ""
        if not declined
        else " (it does not cover what it declined: "
        + ", ".join(f"{f} {d['vectors']}" for f, d in sorted(declined.items()))
        + ")"
    )
    return {
        "engine": engine.name,
        "profile": engine.profile,
        "subset": subset,
        **ran,
        "target": target,
        "applicable": applicable,
        "passed": passed,
        "declined": declined,
        "claim": (
            f"a pass is evidence that engine {engine.name} "
            f"({ran.get('runs_on', 'as it reports')})"
            + (f", running the {target} target's models," if target else "")
            + f" computes exactly {where} {scope}; it is not a full-profile conformance "
            "claim (sections 1 and 12)"
        ),
    }


def report(engine, results: list[VectorOutcome]) -> dict:
    """The whole report as data: totals, per file, per vector, and the claim. Every message
    is ASCII, so :func:`waiexport.jsonio.dumps` writes it in §8.5's canonical form."""
    files: dict = {}
    for r in results:
        counts = files.setdefault(r.file, {k: 0 for k in STATUSES})
        counts[r.status] += 1
    return {
        "engine": engine.name,
        "totals": {k: sum(r.status == k for r in results) for k in STATUSES},
        "files": files,
        "vectors": [
            {
                "file": r.file,
                "id": r.vid,
                "status": r.status,
                "reason": ascii_text(r.reason),
                "placement": r.placement,
                "diffs": [json_diff(d) for d in r.diffs],
            }
            for r in results
        ],
        "claim": claim(engine, results),
    }


def json_diff(d: dict) -> dict:
    """A difference as the report holds it: its histogram keyed by text, its location ASCII."""
    out = dict(d)
    if "histogram" in out:
        out["histogram"] = {str(k): v for k, v in out["histogram"].items()}
    if "located" in out:
        out["located"] = _ascii(out["located"])
    return out


def _ascii(value):
    if isinstance(value, str):
        return ascii_text(value)
    if isinstance(value, dict):
        return {k: _ascii(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ascii(v) for v in value]
    return value


_COLUMNS = [
    ("pass", "passed"),
    ("fail", "failed"),
    ("elsewhere", "elsewhere"),
    ("crashed", "crashed"),
    ("timed_out", "timed out"),
    ("declined", "declined"),
    ("skip", "not for it"),
]


def render(rep: dict) -> str:
    """The report as a person reads it: a table per file, reasons, failures, the claim."""
    lines = [f"{'file':<18} " + " ".join(f"{head:>10}" for _, head in _COLUMNS)]
    for file, c in rep["files"].items():
        lines.append(f"{file:<18} " + " ".join(f"{c[k]:>10}" for k, _ in _COLUMNS))
    for status, words in (("skip", "not for this engine"), ("declined", "declined")):
        reasons = Counter(v["reason"] for v in rep["vectors"] if v["status"] == status)
        for reason, n in sorted(reasons.items()):
            lines.append(f"{words}: {n} vectors, {reason}")
    for v in rep["vectors"]:
        if v["status"] in ("elsewhere", "crashed", "timed_out"):
            lines.append(f"{STATUSES[v['status']].upper()} {v['file']}/{v['id']}: {v['reason']}")
        if v["status"] != "fail":
            continue
        lines.append(f"FAIL {v['file']}/{v['id']}: {v['reason']}")
        for d in v["diffs"]:
            lines.append(
                f"     decode {d['decode']} output {d['output']}: "
                + ", ".join(
                    f"{k} {val}" for k, val in d.items() if k not in ("decode", "output", "located")
                )
            )
            if "located" in d:
                lines.append(f"     located: {d['located']['sentence']}")
    t = rep["totals"]
    lines.append(", ".join(f"{t[k]} {STATUSES[k]}" for k in STATUSES))
    c = rep["claim"]
    if c is None:
        lines.append(
            "no claim: a vector failed, ran elsewhere, crashed or timed out, or none passed"
        )
    else:
        packages = c["packages"]
        lines.append(
            c["claim"]
            + f"; machine {c['machine']}; "
            + (
                ", ".join(f"{k} {v}" for k, v in packages.items())
                if isinstance(packages, dict)
                else packages
            )
            + (f"; {c['probed']}" if "probed" in c else "")
        )
    return "\n".join(lines)
