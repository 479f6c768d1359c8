"""The judgement of what a runner brings back for a pack (:mod:`.packs`), bit for bit, against
the vectors themselves.

:func:`judge` trusts nothing in the results folder: the vectors and the structure of every
decode come from the vector files it is given (matched by digest), the manifest from the pack
the judge kept (or checked against the identity it was given), every model and input against
its digest, and every result against the type and shape the model gives it, read from its
header before its data.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from waiexport.targets.format import format_named

import waiexport
from waiexport.files import NotRegular, TooLarge, npy_header, read_bounded, unlisted
from waiexport.jsonio import BadInput, ascii_text, loads

from .packs import FORMAT, identity, sha
from .validate import VectorOutcome, diff
from .vectors import parse_expect, read_vectors, vector_bytes

__all__ = ["judge", "PackEngine"]

MANIFEST_LIMIT = 64 << 20  # the largest manifest.json the judge reads
RESULTS_LIMIT = 64 << 10  # results.json: a pack identity and a line of text
ERROR_LIMIT = 4096  # what the report keeps of a runner's error file
RAN_ON_LIMIT = 200  # the characters of ``ran_on`` the claim quotes
#: The kernel paths a runner may name (``results.json``'s ``path``, as ``waiexport/runner.py``
#: writes it) that requantise in float32, by the model format run there: a pack of that
#: format run on one is not judged (§6).
FLOAT32_PATHS = {
    ("qdq", "onnxruntime:cpu"): "onnxruntime's CPU provider computes a QDQ model's "
    "requantisations in float32",
    ("tflite", "litert:default"): "LiteRT's default, its XNNPACK delegate, requantises in float32",
}
_KEY = re.compile(r"[0-9]{4,}_[A-Za-z0-9_.-]{0,48}\Z")
#: The most bytes a result's ``.npy`` header may hold (numpy writes a few dozen; it reads
#: up to 10,000 by default).
HEADER_LIMIT = 10_000


@dataclass
class PackEngine:
    """What ran a pack, for the report: the target, and who says they ran it where."""

    name: str
    target: str
    ran_on: str
    models: dict
    pack: str
    profile: str = "acc32"
    subset: str = "npu"

    def describe(self) -> dict:
        return {
            "runs_on": f"as stated by the submitter, not verified: {self.ran_on}",
            "machine": "the submitter's, as they state it (not this one)",
            "where": "on the submitter's machine, as they state it",
            "packages": {"waiexport (judge)": _version()},
            "target": self.target,
            "pack": self.pack,
            "model_sha256": self.models,
        }


def _version() -> str:
    return waiexport.__version__


def _bounded(path: Path, limit: int, what: str) -> bytes:
    """An untrusted file's bytes: a regular file, no link, at most ``limit`` bytes."""
    try:
        return read_bounded(path, limit, follow=False)
    except (NotRegular, TooLarge) as e:
        raise BadInput(f"{path}: {what} is {e.strerror}") from None
    except FileNotFoundError:
        raise BadInput(f"{path}: {what} is missing") from None
    except OSError as e:
        raise BadInput(f"{path}: {what} cannot be read: {e.strerror or e}") from None


def _json(path: Path, limit: int, what: str):
    data = _bounded(path, limit, what)
    try:
        return loads(data)
    except ValueError as e:
        raise BadInput(f"{path}: {what} is not JSON: {str(e)[:120]}") from None


def _inside(root: Path, rel) -> Path:
    """``root/rel`` for a manifest's relative path that stays inside ``root`` through no
    symbolic link; ``BadInput`` otherwise."""
    if (
        not isinstance(rel, str)
        or not rel
        or rel.startswith("/")
        or "\\" in rel
        or any(part in ("", ".", "..") for part in rel.split("/"))
        or "\0" in rel
    ):
        raise BadInput(f"{root}/manifest.json: {str(rel)[:80]!r} is not a path inside the pack")
    path = root
    for part in rel.split("/"):
        path = path / part
        if path.is_symlink():
            raise BadInput(f"{path}: a symbolic link: not followed")
    return path


def judge(
    pack: Path, results: Path, files: list[Path], expected: str | None = None
) -> tuple[list[VectorOutcome], PackEngine, list[str]]:
    """The outcomes of the results under ``results`` for the pack at ``pack``, judged against
    the vector files ``files``; the engine that stands for them; and every result-file
    problem (missing, extra, mis-shaped, mistyped), one line each, each failing its vector.

    ``expected`` is the pack's identity as the judge knows it; without it the manifest under
    ``pack`` is trusted, so ``pack`` must be the judge's own copy, never the results folder.
    Raises ``BadInput`` (nothing is judged) for a pack or results that are not what the
    judge made and was given: another identity, a vector file not given, a manifest that
    does not cover the vectors, a model or input whose bytes changed, results of another
    pack, a path that leaves its folder."""
    blob = _bounded(pack / "manifest.json", MANIFEST_LIMIT, "the pack's manifest")
    ident = identity(blob)
    if expected is not None and ident != expected:
        raise BadInput(
            f"{pack / 'manifest.json'}: its identity is {ident[:16]}..., not the "
            f"pack {expected[:16]}... given: it is not the manifest vectors pack "
            "wrote"
        )
    try:
        manifest = loads(blob)
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise BadInput(f"{pack}/manifest.json: not a {FORMAT} manifest")
        return _judge(pack, results, files, manifest, ident)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as e:
        if isinstance(e, BadInput):
            raise
        raise BadInput(
            f"{pack}/manifest.json: not a {FORMAT} manifest: {type(e).__name__} {str(e)[:100]}"
        ) from None


def _judge(pack, results, files, manifest, ident):
    try:
        fmt = format_named(manifest["model_format"])
    except KeyError:
        raise BadInput(
            f"{pack}/manifest.json: model format "
            f"{ascii_text(str(manifest.get('model_format')))[:40]!r} is none this "
            "judge knows"
        ) from None
    stated = _stated(results, ident, fmt.name)
    _same_files(pack, results, manifest)
    vectors = _given_vectors(manifest, files)
    errors: list = []
    outcomes, models, expected_files = [], {}, set()
    for entry in manifest["vectors"]:
        v = vectors[(entry["file_sha256"], entry["id"])]
        if not _KEY.match(entry["key"]):
            raise BadInput(
                f"{pack}/manifest.json: vector {entry['id'][:60]!r}: key "
                f"{entry['key'][:60]!r} is not one vectors pack writes"
            )
        out = VectorOutcome(entry["file"], entry["id"], "pass")
        outcomes.append(out)
        if "host_refuses_load" in entry or v["load"] != "ok":
            if entry.get("host_refuses_load") != v["load"]:
                raise BadInput(
                    f"{pack}/manifest.json: vector {entry['id'][:60]!r}: the pack "
                    "and the vector disagree about its load"
                )
            continue
        if len(entry["decodes"]) != len(v["decodes"]):
            raise BadInput(
                f"{pack}/manifest.json: vector {entry['id'][:60]!r}: "
                f"{len(entry['decodes'])} decodes, the vector has {len(v['decodes'])}"
            )
        for k, (d, vd) in enumerate(zip(entry["decodes"], v["decodes"])):
            kind, want = parse_expect(vd)
            if "host_refuses" in d:
                if (kind, want) != ("refuse", d["host_refuses"]):
                    _fail(
                        out,
                        f"decode {k}: the host refuses with {d['host_refuses']}, the "
                        f"vector expects {_expected(kind, want)}",
                    )
                continue
            models[d["model"]["path"]] = d["model"]["sha256"]
            _judge_decode(results, entry, k, d, kind, want, fmt, out, errors, expected_files)
    _extra(results, expected_files, errors)
    for entry in manifest["not_packed"]:
        if entry.get("status") not in ("skip", "declined"):
            raise BadInput(
                f"{pack}/manifest.json: vector {str(entry['id'])[:60]!r}: not "
                "packed, neither as not for the target nor as declined"
            )
        outcomes.append(
            VectorOutcome(
                entry["file"], entry["id"], entry["status"], ascii_text(str(entry["reason"]))
            )
        )
    target = ascii_text(str(manifest["target"]))[:40]
    engine = PackEngine(
        f"pack:{target}",
        target,
        stated,
        models,
        ident,
        str(manifest["profile"]),
        str(manifest["subset"]),
    )
    return outcomes, engine, errors


def _expected(kind, want) -> str:
    return f"refuse {want}" if kind == "refuse" else "outputs"


def _fail(out: VectorOutcome, why: str) -> None:
    out.status = "fail"
    out.reason = out.reason or ascii_text(why)


def _stated(results: Path, ident: str, model_format: str) -> str:
    """What ``results.json`` states it ran on (its kernel path, ``path``, first where it
    names one), after checking it names this pack and no path of :data:`FLOAT32_PATHS` for
    the pack's model format."""
    doc = _json(results / "results.json", RESULTS_LIMIT, "results.json")
    if not isinstance(doc, dict):
        raise BadInput(f"{results / 'results.json'}: not an object {{pack, ran_on}}")
    if doc.get("pack") != ident:
        said = doc.get("pack")
        raise BadInput(
            f"{results / 'results.json'}: these results are for pack "
            f"{str(said)[:16] + '...' if isinstance(said, str) else 'none named'}"
            f", not this pack {ident[:16]}... (results.json names the pack's "
            'identity as "pack")'
        )
    path = doc.get("path")
    if (model_format, path) in FLOAT32_PATHS:
        raise BadInput(
            f"{results / 'results.json'}: ran on {path}: "
            f"{FLOAT32_PATHS[model_format, path]}, which §6 forbids on a graph value: "
            "not judged (run the pack on an integer path)"
        )
    ran_on = doc.get("ran_on")
    if not isinstance(ran_on, str) or not ran_on.strip():
        return "not stated"
    text = ascii_text(" ".join(ran_on.split()))
    if isinstance(path, str) and path.strip():
        text = f"{ascii_text(path)[:40]}: {text}"
    return (
        text if len(text) <= RAN_ON_LIMIT else f"{text[:RAN_ON_LIMIT]}...({len(text)} characters)"
    )


def _same_files(pack: Path, results: Path, manifest: dict) -> None:
    """Every model and input the manifest names matches its digest, in the pack and, where
    the results folder holds one (the runner's copy), there too; a manifest in the results
    folder is the pack's, byte for byte."""
    folders = [pack] + ([results] if results.resolve() != pack.resolve() else [])
    if len(folders) == 2 and (results / "manifest.json").exists():
        theirs = _bounded(results / "manifest.json", MANIFEST_LIMIT, "a manifest")
        if theirs != _bounded(pack / "manifest.json", MANIFEST_LIMIT, "the pack's manifest"):
            raise BadInput(
                f"{results / 'manifest.json'}: differs from the pack's manifest: "
                "the results folder's manifest is not the one vectors pack wrote"
            )
    listed = {}
    for entry in manifest["vectors"]:
        for d in entry["decodes"]:
            model = d.get("model") or {}
            for f in [
                model,
                *(v for v in model.values() if isinstance(v, dict)),
                *d.get("inputs", []),
            ]:
                if f:
                    listed[f["path"]] = f["sha256"]
    for rel, want in listed.items():
        for root in folders:
            path = _inside(root, rel)
            if root is results and not path.exists():
                continue
            got = sha(_bounded(path, MANIFEST_LIMIT, "a packed file"))
            if got != want:
                raise BadInput(
                    f"{path}: its bytes changed after packing (SHA-256 "
                    f"{got[:16]}..., the pack says {want[:16]}...)"
                )


def _given_vectors(manifest: dict, files: list[Path]) -> dict:
    """The vectors of the files the judge was given that the pack was made from, by
    ``(file digest, id)``; the manifest must list each once, packed or not."""
    given = {}
    for path in files:
        raw = vector_bytes(path)  # the judge's own input: read as validate reads it
        given[sha(raw)] = (path, read_vectors(path, raw))
    vectors = {}
    for f in manifest["vector_files"]:
        if f["sha256"] not in given:
            raise BadInput(
                f"vector file {ascii_text(str(f['name']))[:80]} (SHA-256 "
                f"{str(f['sha256'])[:16]}...): the pack was made from it, and it "
                "is not among the vector files given (PATHS, default the "
                "committed corpus)"
            )
        for v in given[f["sha256"]][1]:
            vectors[(f["sha256"], v["id"])] = v
    listed = [(e["file_sha256"], e["id"]) for e in manifest["vectors"] + manifest["not_packed"]]
    unknown = [i for i in listed if i not in vectors]
    missing = [i for i in vectors if i not in listed]
    twice = {i for i in listed if listed.count(i) > 1}
    for what, ids in (
        ("names vectors the files do not hold", unknown),
        ("leaves out vectors the files hold", missing),
        ("lists vectors twice", twice),
    ):
        if ids:
            raise BadInput(
                f"manifest.json {what}: "
                + ", ".join(str(vid)[:40] for _, vid in sorted(ids)[:5])
                + (", ..." if len(ids) > 5 else "")
            )
    return vectors


def _judge_decode(results, entry, k, d, kind, want, fmt, out, errors, expected_files):
    """One decode's result files against the vector: the checks the host makes (acc64
    models' ``check`` outputs, in graph order), then each output."""
    specs = [s for s in d["outputs"] if s["name"].startswith("out")]
    if kind == "outputs" and len(specs) != len(want):
        raise BadInput(
            f"manifest.json: vector {entry['id'][:60]!r} decode {k}: "
            f"{len(specs)} outputs, the vector expects {len(want)}"
        )
    base = f"outputs/{entry['key']}/{k}"
    got = {}
    for spec in d["outputs"]:
        name = spec["name"]
        if not re.fullmatch(r"(out|check)[0-9]{1,6}", str(name)):
            raise BadInput(
                f"manifest.json: vector {entry['id'][:60]!r}: output "
                f"{str(name)[:40]!r} is not one vectors pack writes"
            )
        rel = f"{base}/{name}.npy"
        expected_files.add(rel)
        got[name] = _result(results, rel, spec, errors)
    said = _runner_error(results, entry["key"], k)
    if any(a is None for a in got.values()):
        _fail(
            out,
            f"decode {k}: no usable result for "
            + ", ".join(n for n, a in got.items() if a is None)
            + (f"; the runner says: {said}" if said else ""),
        )
        return
    refused = any(
        s["name"].startswith("check") and not _within(got[s["name"]], s) for s in d["outputs"]
    )
    if refused or kind == "refuse":
        if (kind, want) != ("refuse", "field_range") or not refused:
            _fail(
                out,
                f"decode {k}: expected {_expected(kind, want)}, got "
                + ("refuse field_range" if refused else "outputs"),
            )
        return
    for j, spec in enumerate(specs):
        d_ = diff(want[j], fmt.chw(got[spec["name"]]).astype(np.int64))
        if d_:
            _fail(out, f"decode {k} output {j} differs")
            out.diffs.append({"decode": k, "output": j, **d_})


def _within(a: np.ndarray, spec: dict) -> bool:
    """Whether every element of a ``check`` output lies in its tensor's range."""
    return a.size == 0 or (int(spec["lo"]) <= int(a.min()) and int(a.max()) <= int(spec["hi"]))


def _runner_error(results: Path, vkey: str, k: int) -> str:
    """What the runner wrote as decode ``k``'s error, read through no symbolic link."""
    try:
        path = _inside(results, f"errors/{vkey}/{k}.txt")
    except BadInput:
        return "(its error file lies behind a symbolic link: not followed)"
    if not path.exists():
        return ""
    try:
        text = read_bounded(path, 1 << 20, follow=False)[:ERROR_LIMIT]
    except OSError:
        return "(its error file cannot be read)"
    return ascii_text(" ".join(text.decode("utf-8", "replace").split()))[:400]


def _result(results: Path, rel: str, spec: dict, errors: list):
    """One result file, its header read and checked (a regular file, the model's integer
    type and shape, the size those give) before its data; None, with the problem said."""
    path = _inside(results, rel)
    dtype, shape = np.dtype(spec["dtype"]), [int(n) for n in spec["shape"]]
    if dtype.kind not in "iu":
        raise BadInput(f"manifest.json: {rel}: type {dtype.name} is not an integer type")
    if not path.exists():
        errors.append(ascii_text(f"{path}: missing"))
        return None
    try:
        with open(
            path,
            "rb",
            opener=lambda p, f: os.open(
                p, f | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            ),
        ) as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ValueError("not a regular file")
            got_shape, fortran, got_type = npy_header(f, HEADER_LIMIT)
            if got_type != dtype or list(got_shape) != shape:
                errors.append(
                    ascii_text(
                        f"{path}: {got_type} {list(got_shape)}, the model's output is "
                        f"{dtype.name} {shape}"
                    )
                )
                return None
            size = os.fstat(f.fileno()).st_size - f.tell()
            if size != int(np.prod(shape)) * dtype.itemsize:
                raise ValueError(f"{size} bytes of data for {dtype.name} {shape}")
            a = np.fromfile(f, dtype=dtype, count=int(np.prod(shape)))
            return a.reshape(shape, order="F" if fortran else "C")
    except (OSError, ValueError) as e:
        errors.append(ascii_text(f"{path}: not an .npy result of the model: {str(e)[:120]}"))
        return None


def _extra(results: Path, expected_files: set, errors: list) -> None:
    """Files under ``results/outputs`` that the pack asks for nowhere: only the folders the
    manifest names are entered, no symbolic link is followed, and at most 20 are named."""
    top = results / "outputs"
    if top.is_symlink():
        errors.append(ascii_text(f"{top}: a symbolic link: not followed"))
        return
    if not top.is_dir():
        return
    extra = unlisted(top, {f.removeprefix("outputs/") for f in expected_files}, most=21)
    for rel in extra[:20]:
        errors.append(ascii_text(f"{top / rel}: extra: the pack asks for no such output"))
    if len(extra) > 20:
        errors.append(f"{top}: and more extra files")
