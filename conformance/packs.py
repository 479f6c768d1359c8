"""Offline vector packs: the vectors a target takes, as models and inputs a runner elsewhere
(a board, an FVP, a vendor runtime) can run, and the judgement of what it brings back, bit for
bit, against the vectors themselves.

A pack holds, per vector, the model exported for the target, each decode's **inputs only**
(``.npy``, in the model's layout and types), the refusals the host must make before running,
and ``manifest.json`` naming every file with its SHA-256 and the vector files the pack was made
from. The expected outputs are not in it. The runner writes ``outputs/<id>/<decode>/<name>.npy``
for every output the manifest lists, and ``results.json`` (``{"ran_on": "…"}``, what it ran on,
in its own words) into the pack's folder; :func:`judge` reads them back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from waiexport.jsonio import BadInput, ascii_text, dumps
from waiexport.refusal import Refusal

from .validate import Outcome, diff
from .vectors import parse_expect, read_vectors, vector_inputs

__all__ = ["make_pack", "judge", "PackEngine", "FORMAT"]

FORMAT = "waiexport-pack/1"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _save(root: Path, rel: str, data: bytes) -> dict:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return {"path": rel, "sha256": _sha(data)}


def _npy(a: np.ndarray) -> bytes:
    import io
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def make_pack(target, files: list[Path], out: Path, progress=None) -> dict:
    """Write the pack for ``target`` of the vectors in ``files`` under ``out``; returns the
    manifest. A vector the target cannot take is listed, with the reason, as not packed."""
    from waiexport.targets.exporter import fit

    manifest = {"format": FORMAT, "target": target.name,
                "layout": "NCHW [1, C, H, W]" if target.fmt == "onnx" else "NHWC [1, H, W, C]",
                "vector_files": [], "vectors": [], "not_packed": []}
    for path in files:
        vectors = read_vectors(path)     # BadInput names a file that cannot be read
        raw = path.read_bytes()
        manifest["vector_files"].append({"path": str(path.resolve()), "sha256": _sha(raw)})
        for v in vectors:
            if progress:
                progress(1)
            where = {"file": path.stem, "id": v["id"]}
            if "stage" in v:
                manifest["not_packed"].append({**where, "reason": "a stage operator: it runs in "
                                               "the driver, not in a model (section 5E)"})
                continue
            if "acc32" not in v["profiles"]:
                manifest["not_packed"].append({**where, "reason": "profiles acc64"})
                continue
            if v["load"] != "ok":
                manifest["vectors"].append({**where, "file_sha256": _sha(raw),
                                            "host_refuses_load": v["load"], "decodes": []})
                continue
            try:
                verdict = fit(v["graph_bytes"], target)
            except Refusal as r:
                manifest["not_packed"].append({**where, "reason": f"refused at load: {r}"})
                continue
            if not verdict.fits:
                manifest["not_packed"].append({**where,
                                               "reason": ascii_text("; ".join(verdict.reasons))})
                continue
            manifest["vectors"].append(
                {**where, "file_sha256": _sha(raw), "graph_sha256": _sha(v["graph_bytes"]),
                 "decodes": _pack_decodes(target, verdict.export, v, out)})
    (out / "manifest.json").write_text(dumps(manifest) + "\n")
    return manifest


def _pack_decodes(target, exp, v: dict, out: Path) -> list:
    """One vector's decodes as the pack holds them: each decode's model, its inputs only
    (a state input after the first completed decode comes from that decode's output), where
    its outputs go, or the host's refusal. The source graph's reference carries the state
    and plans the output shapes; its values are not written."""
    from waiexport.reference import Decoder
    from waiexport.targets.engines import host_feed, tosa_feed
    g, onnx_model = exp.graph, target.fmt == "onnx"
    state_src = {f"state{k}": inp.src
                 for k, inp in enumerate(i for i in g.inputs if i.kind == "state")}
    onnx_file = _save(out, f"models/{v['id']}.onnx", exp.model.SerializeToString()) \
        if onnx_model else None
    seq, last_ok, decodes = Decoder(exp.source), None, []
    for k, (inputs, scalars) in enumerate(vector_inputs(v, g)):
        try:
            every = seq.inputs(inputs)
            feed = host_feed(g, every, scalars)
        except Refusal as r:
            decodes.append({"host_refuses": r.code})
            continue
        d = {"inputs": [], "outputs": [], "state": []}
        if onnx_model:
            d["model"], arrays = onnx_file, dict(feed)
            types = [np.int32] * len(g.outputs)
        else:
            m = exp.tosa([tuple(x.shape) for x in every])
            d["model"] = _model_for(target, m, out, f"{v['id']}_{every[0].shape[1]}x"
                                                     f"{every[0].shape[2]}")
            arrays = dict(zip(feed, tosa_feed(g, m, every, scalars)))
            types = [np.dtype(dtype).type for _, dtype in m.outputs]
        d["order"] = list(arrays)   # the model's inputs, in the order it takes them
        for name, a in arrays.items():
            if name in state_src and last_ok is not None:
                d["state"].append({"name": name, "from_decode": last_ok,
                                   "output": f"out{state_src[name]}"})
                continue
            d["inputs"].append({"name": name, "dtype": str(a.dtype), "shape": list(a.shape),
                                **_save(out, f"inputs/{v['id']}/{k}/{name}.npy", _npy(a))})
        for j, (dtype, o) in enumerate(zip(types, seq.step(inputs, scalars))):
            d["outputs"].append({"name": f"out{j}", "dtype": np.dtype(dtype).name,
                                 "shape": _out_shape(onnx_model, o.shape),
                                 "path": f"outputs/{v['id']}/{k}/out{j}.npy"})
        last_ok = k
        decodes.append(d)
    return decodes


def _out_shape(onnx_model: bool, chw: tuple) -> list:
    c, h, w = chw
    return [1, c, h, w] if onnx_model else [1, h, w, c]


def _model_for(target, m, out: Path, stem: str) -> dict:
    """The TOSA model, or for an Ethos-U target Vela's compile of it."""
    tosa = _save(out, f"models/{stem}.tosa", m.data)
    if not target.vela:
        return tosa
    from waiexport.targets.vela import compile_vela
    report = compile_vela(out / tosa["path"], target.vela, out / "models")
    data = report.tflite.read_bytes()
    return {"path": str(report.tflite.relative_to(out)), "sha256": _sha(data),
            "tosa": tosa}


@dataclass
class PackEngine:
    """What ran a pack, for the report: the target, and who says they ran it where."""

    name: str
    target: str
    ran_on: str
    models: dict
    profile: str = "acc32"
    subset: str = "npu"

    def describe(self) -> dict:
        return {"runs_on": f"as stated by the submitter, not verified: {self.ran_on}",
                "packages": {"waiexport (judge)": _version()},
                "target": self.target, "model_sha256": self.models}


def _version() -> str:
    import waiexport
    return waiexport.__version__


def _problem(errors: list, what: str) -> None:
    errors.append(ascii_text(what))


def judge(pack: Path, results: Path) -> tuple[list[Outcome], PackEngine, list[str]]:
    """The outcomes of the results under ``results`` for the pack at ``pack`` (see
    :func:`_judge`); a manifest with a member missing or of the wrong kind is ``BadInput``."""
    try:
        return _judge(pack, results)
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise BadInput(f"{pack}/manifest.json: not a {FORMAT} manifest: "
                       f"{type(e).__name__} {str(e)[:100]}") from None


def _judge(pack: Path, results: Path) -> tuple[list[Outcome], PackEngine, list[str]]:
    """The outcomes of the results under ``results`` for the pack at ``pack``, the engine
    that stands for them, and every result-file problem (missing, extra, mis-shaped,
    mistyped), one line each. ``BadInput`` when the pack is not one, or its vector files no
    longer match their digests."""
    try:
        manifest = json.loads((pack / "manifest.json").read_bytes())
    except (OSError, ValueError, RecursionError) as e:
        raise BadInput(f"{pack}/manifest.json: not a pack manifest: {str(e)[:200]}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BadInput(f"{pack}/manifest.json: not a {FORMAT} manifest")
    vectors = {}
    for f in manifest["vector_files"]:
        path = Path(f["path"])
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise BadInput(f"{path}: the pack's vector file cannot be read: {e.strerror}") \
                from None
        if _sha(raw) != f["sha256"]:
            raise BadInput(f"{path}: does not match the pack's digest {f['sha256'][:16]}...: "
                           "the expectations are not the ones the pack was made from")
        vectors.update({(path.stem, v["id"]): v for v in read_vectors(path)})
    try:
        stated = json.loads((results / "results.json").read_bytes()).get("ran_on", "")
    except (OSError, ValueError, AttributeError):
        stated = ""
    errors: list = []
    expected_files = set()
    outcomes = []
    models = {}
    for entry in manifest["vectors"]:
        v = vectors[(entry["file"], entry["id"])]
        out = Outcome(entry["file"], entry["id"], "pass")
        outcomes.append(out)
        if "host_refuses_load" in entry:
            continue
        decodes = [parse_expect(d) for d in v["decodes"]]
        for k, (d, (kind, want)) in enumerate(zip(entry["decodes"], decodes)):
            if "host_refuses" in d:
                if (kind, want) != ("refuse", d["host_refuses"]):
                    out.status, out.reason = "fail", f"decode {k}: the host refuses with " \
                        f"{d['host_refuses']}, the vector expects {kind} {want if kind == 'refuse' else ''}".rstrip()
                continue
            models[d["model"]["path"]] = d["model"]["sha256"]
            for j, spec in enumerate(d["outputs"]):
                expected_files.add(spec["path"])
                got = _result(results, spec, errors)
                if got is None or kind == "refuse":
                    out.status = "fail"
                    out.reason = out.reason or (f"decode {k}: the vector expects refuse {want}"
                                                if kind == "refuse" else
                                                f"decode {k} output {j}: no usable result file")
                    continue
                chw = got[0] if manifest["layout"].startswith("NCHW") else \
                    np.transpose(got[0], (2, 0, 1))
                d_ = diff(want[j], chw.astype(np.int64))
                if d_:
                    out.status = "fail"
                    out.reason = out.reason or f"decode {k} output {j} differs"
                    out.diffs.append({"decode": k, "output": j, **d_})
    for extra in sorted(p.relative_to(results).as_posix()
                        for p in (results / "outputs").rglob("*") if p.is_file()) \
            if (results / "outputs").is_dir() else []:
        if extra not in expected_files:
            _problem(errors, f"{results / extra}: extra: the pack asks for no such output")
    if errors:
        for o in outcomes:
            if o.status == "pass" and any(f"/{o.vid}/" in e for e in errors):
                o.status, o.reason = "fail", "a result file is wrong"
    engine = PackEngine(f"pack:{manifest['target']}", manifest["target"],
                        ascii_text(stated) or "not stated", models)
    return outcomes, engine, errors


def _result(results: Path, spec: dict, errors: list):
    path = results / spec["path"]
    if not path.is_file():
        _problem(errors, f"{path}: missing")
        return None
    try:
        a = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        _problem(errors, f"{path}: not an .npy file: {str(e)[:120]}")
        return None
    if list(a.shape) != [int(n) for n in spec["shape"]]:
        _problem(errors, f"{path}: shape {list(a.shape)}, the model's output is "
                 f"{[int(n) for n in spec['shape']]}")
        return None
    if a.dtype.name != spec["dtype"]:
        _problem(errors, f"{path}: type {a.dtype.name}, the model's output is {spec['dtype']}")
        return None
    return a
