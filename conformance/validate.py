"""Validation of an engine against vector files (§14): every vector whose profiles include the
engine's profile and whose graph lies in the engine's subset, bit for bit, refusals included;
integer-first diffs for what fails."""

from __future__ import annotations

import platform
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from waiexport.jsonio import BadInput
from waiexport.refusal import Refusal

from waiexport.targets.exporter import DoesNotFit

from .locate import locate as find_first
from .vectors import load_outcome, parse_expect, read_vectors, vector_inputs

__all__ = ["Outcome", "validate_vector", "validate", "diff", "claim", "files_under"]


@dataclass
class Outcome:
    """One vector on one engine: ``status`` is ``pass``, ``fail`` or ``skip`` (not for this
    engine), with the reason and, for a failing output, the diff."""

    file: str
    vid: str
    status: str
    reason: str = ""
    diffs: list = field(default_factory=list)


def diff(expected: np.ndarray, got: np.ndarray) -> dict:
    """What an integer comparator says of two tensors: the first differing CHW index with both
    values, how many elements differ, the largest difference, and how many differ by each
    amount (``got − expected``)."""
    if expected.shape != got.shape:
        return {"shape": [list(expected.shape), list(got.shape)]}
    e, g = expected.astype(object).reshape(-1), got.astype(object).reshape(-1)
    delta = [int(b) - int(a) for a, b in zip(e, g)]
    bad = [i for i, d in enumerate(delta) if d]
    if not bad:
        return {}
    first = bad[0]
    c, h, w = expected.shape
    return {"first": [first // (h * w), first // w % h, first % w], "expected": int(e[first]),
            "got": int(g[first]), "count": len(bad), "largest": max(abs(delta[i]) for i in bad),
            "histogram": dict(sorted(Counter(delta[i] for i in bad).items()))}


def validate_vector(engine, file: str, v: dict, locate: bool = False) -> Outcome:
    """Run one vector on ``engine`` (see :mod:`waiexport.targets.engines` for the interface);
    with ``locate``, a differing output is traced to the first operator that differs."""
    if engine.profile not in v["profiles"]:
        return Outcome(file, v["id"], "skip", f"profiles {', '.join(v['profiles'])}")
    data = v["graph_bytes"]
    if v["load"] != "ok":
        try:
            engine.load(data)
        except Refusal as r:
            if r.code == v["load"]:
                return Outcome(file, v["id"], "pass")
            return Outcome(file, v["id"], "fail", f"load refused with {r.code}, not {v['load']}")
        return Outcome(file, v["id"], "fail", f"loaded a graph refused with {v['load']}")
    if engine.subset == "npu":
        verdict = load_outcome(data)[3]
        if not verdict["npu"]:
            return Outcome(file, v["id"], "skip", "outside wai-ops/1-npu")
    try:
        loaded = engine.load(data)
    except Refusal as r:
        return Outcome(file, v["id"], "fail", f"refused at load with {r.code}: {r}")
    except DoesNotFit:
        return Outcome(file, v["id"], "skip", f"does not fit {engine.name}")
    seq = loaded.sequence()
    out = Outcome(file, v["id"], "pass")
    for k, ((inputs, scalars), d) in enumerate(zip(vector_inputs(v, loaded.graph),
                                                   v["decodes"])):
        kind, want = parse_expect(d)
        every_input = seq.inputs(inputs)
        try:
            got = ("outputs", seq.step(inputs, scalars))
        except Refusal as r:
            got = ("refuse", r.code)
        if kind == "refuse" or got[0] == "refuse":
            if got != (kind, want):
                out.status = "fail"
                out.reason = f"decode {k}: expected {kind} {want if kind == 'refuse' else ''}".rstrip() \
                    + f", got {got[0]} {got[1] if got[0] == 'refuse' else ''}".rstrip()
            continue
        for j, (a, b) in enumerate(zip(want, got[1])):
            d_ = diff(a, np.asarray(b))
            if d_:
                out.status = "fail"
                out.reason = out.reason or f"decode {k} output {j} differs"
                if locate:
                    d_["located"] = find_first(loaded, every_input, scalars)
                out.diffs.append({"decode": k, "output": j, **d_})
    return out


def files_under(paths: list[Path]) -> list[Path]:
    """The ``.jsonl`` files named or under the folders named, in order."""
    files = []
    for p in paths:
        files += sorted(p.rglob("*.jsonl")) if p.is_dir() else [p]
    return files


def validate(engine, files: list[Path], progress=None, locate: bool = False) -> list[Outcome]:
    """Every vector of ``files`` on ``engine``; ``progress(n)`` is told as vectors finish."""
    results = []
    for path in files:
        try:
            vectors = read_vectors(path)
        except BadInput as e:
            results.append(Outcome(path.stem, "-", "fail", str(e)))
            continue
        for v in vectors:
            results.append(validate_vector(engine, path.stem, v, locate))
            if progress:
                progress(1)
    return results


def claim(engine) -> dict:
    """What a pass supports: evidence for the engine's subset and profile on this machine,
    not a full-profile conformance claim (§1, §12); with the machine and the versions."""
    import onnxruntime

    import waiexport
    return {
        "engine": engine.name, "profile": engine.profile, "subset": engine.subset,
        "machine": f"{platform.machine()} {platform.processor() or platform.platform()}",
        "versions": {"waiexport": waiexport.__version__, "numpy": np.__version__,
                     "onnxruntime": onnxruntime.__version__, "python": platform.python_version()},
        "claim": (f"a pass is evidence that engine {engine.name} computes the vectors of "
                  f"{'wai-ops/1-npu' if engine.subset == 'npu' else 'wai-ops/1'} tagged "
                  f"{engine.profile} exactly on this machine; it is not a full-profile "
                  "conformance claim (§1, §12)"),
    }
