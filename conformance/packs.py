"""Offline vector packs: the vectors a target takes, as models and inputs a runner elsewhere
(a board, an FVP, a vendor runtime) can run, and the judgement of what it brings back, bit for
bit, against the vectors themselves.

A pack holds, per vector, the model exported for the target, each decode's **inputs only**
(``.npy``, in the model's layout and types), the refusals the host must make before running,
and ``manifest.json`` naming every file with its SHA-256 and the vector files (by name and
digest) the pack was made from. The expected outputs are not in it. The pack's **identity** is
the SHA-256 of its ``manifest.json``. The runner writes ``outputs/<key>/<decode>/<name>.npy``
for every output the manifest lists, may write ``errors/<key>/<decode>.txt`` where a decode
could not run, and writes ``results.json``: ``{"pack": identity, "path": "runtime:kernels",
"ran_on": "…"}``, which :mod:`.judging` judges (``waiexport/runner.py`` is the reference
runner).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from waiexport.reference import Decoder
from waiexport.targets.exporter import fit
from waiexport.targets.format import format_of

from waiexport.certificate import Verdict
from waiexport.files import npy_bytes, output_folder
from waiexport.jsonio import ascii_text, dumps
from waiexport.load import read_member
from waiexport.plan import run_plan
from waiexport.refusal import Refusal

from .vectors import read_vectors, vector_bytes, vector_inputs

__all__ = ["make_pack", "FORMAT", "COMMAND", "identity", "key", "sha"]

FORMAT = "waiexport-pack/3"
#: The command whose output a pack is (:func:`waiexport.files.output_folder`).
COMMAND = "vectors pack"


def sha(data: bytes) -> str:
    """The SHA-256 of ``data``, as the manifest writes a file's digest."""
    return hashlib.sha256(data).hexdigest()


def identity(manifest: bytes) -> str:
    """A pack's identity: the SHA-256 of its ``manifest.json``."""
    return sha(manifest)


def key(n: int, vid: str) -> str:
    """The one way a vector id becomes a file name: its ordinal in the pack, then the id
    with every character outside ``[A-Za-z0-9_.-]`` as ``_``, at most 48 of them; so two
    equal ids (in two files) never share a name, and no id reaches outside the pack."""
    return f"{n:04d}_" + re.sub(r"[^A-Za-z0-9_.-]", "_", vid)[:48]


def _save(root: Path, rel: str, data: bytes) -> dict:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return {"path": rel, "sha256": sha(data)}


def make_pack(target, files: list[Path], out: Path, progress=None) -> tuple[dict, str]:
    """Write the pack for ``target`` of the vectors in ``files`` as the folder ``out``, whole
    or not at all (an earlier pack there is replaced only when this one is complete); returns
    the manifest and the pack's identity. A vector the target does not take is listed as not
    packed, with the reason and how ``validate`` counts it (:func:`_left_out`)."""

    read, seen = [], set()
    for path in files:  # a file given twice (by digest) is packed once
        raw = vector_bytes(path)
        if (digest := sha(raw)) not in seen:
            seen.add(digest)
            read.append((path, read_vectors(path, raw), raw))
    fmt = format_of(target)
    manifest = {
        "format": FORMAT,
        "target": target.name,
        "profile": target.profile,
        "subset": target.subset,
        "model_format": fmt.name,
        "layout": fmt.layout,
        "vector_files": [{"name": path.name, "sha256": sha(raw)} for path, _, raw in read],
        "vectors": [],
        "not_packed": [],
    }
    with output_folder(out, COMMAND) as work:
        with fmt.packing() as later:  # every model's entry complete at its end
            for path, vectors, raw in read:
                for v in vectors:
                    if progress:
                        progress(1)
                    where = {"file": path.stem, "file_sha256": sha(raw), "id": v["id"]}
                    left_out, verdict = _left_out(target, v)
                    if left_out is not None:
                        manifest["not_packed"].append(
                            {**where, "status": left_out[0], "reason": ascii_text(left_out[1])}
                        )
                        continue
                    entry = {**where, "key": key(len(manifest["vectors"]), v["id"])}
                    manifest["vectors"].append(entry)
                    if v["load"] != "ok":
                        entry.update(host_refuses_load=v["load"], decodes=[])
                        continue
                    entry.update(
                        graph_sha256=sha(v["graph_bytes"]),
                        decodes=_pack_decodes(verdict.export, v, entry["key"], work, later),
                    )
        blob = (dumps(manifest, strict=False) + "\n").encode()
        (work / "manifest.json").write_bytes(blob)
    return manifest, identity(blob)


def _left_out(target, v: dict) -> tuple:
    """Why the target's pack leaves out vector ``v``, as ``validate`` on the target's engine
    counts it: ``("skip", why)`` for one outside the target's profile or subset, or a stage
    vector; ``("declined", why)`` for one its export cannot take; ``None`` for one it packs.
    With the fit verdict of a graph that loads (``None`` otherwise)."""
    if "stage" in v:
        return (
            "skip",
            "a stage operator: it runs in the driver, not in a model (section 5E)",
        ), None
    if target.profile not in v["profiles"]:
        return ("skip", f"profiles {', '.join(v['profiles'])}"), None
    if v["load"] != "ok":
        return None, None
    if target.subset == "npu" and not Verdict.over([read_member(v["graph_bytes"])]).npu:
        return ("skip", "outside wai-ops/1-npu"), None
    try:
        verdict = fit(v["graph_bytes"], target)
    except Refusal as r:
        return ("declined", f"refused at load: {r}"), None
    return (None if verdict.fits else ("declined", "; ".join(verdict.reasons))), verdict


def _pack_decodes(exp, v: dict, vkey: str, out: Path, later) -> list:
    """One vector's decodes as the pack holds them: each decode's model, its inputs only
    (a state input after the first completed decode comes from that decode's output), where
    its outputs go and their types, or the host's refusal. The source graph's reference
    carries the state; its values are not written. ``later``: what the format's
    ``packing`` yielded, for its models."""
    fmt, g = exp.format, exp.graph
    state_src = {
        f"state{k}": inp.src for k, inp in enumerate(i for i in g.inputs if i.kind == "state")
    }
    seq, last_ok, decodes, packed = Decoder(exp.source), None, [], {}
    for k, (inputs, scalars) in enumerate(vector_inputs(v, g)):
        try:
            every = seq.inputs(inputs)
            model = exp.built([x.shape for x in every])
            feed = fmt.feed(g, model, every, scalars)
        except Refusal as r:
            decodes.append({"host_refuses": r.code})
            continue
        if model.shapes not in packed:
            stem = (
                vkey if model.shapes is None else f"{vkey}_{every[0].shape[1]}x{every[0].shape[2]}"
            )
            packed[model.shapes] = fmt.packed(exp, model, out, stem, later)
        d = {
            "model": packed[model.shapes],
            "order": list(feed),
            "inputs": [],
            "outputs": [],
            "state": [],
        }
        for name, a in feed.items():
            if name in state_src and last_ok is not None:
                d["state"].append(
                    {"name": name, "from_decode": last_ok, "output": f"out{state_src[name]}"}
                )
                continue
            d["inputs"].append(
                {
                    "name": name,
                    "dtype": str(a.dtype),
                    "shape": list(a.shape),
                    **_save(out, f"inputs/{vkey}/{k}/{name}.npy", npy_bytes(a)),
                }
            )
        planned = run_plan(g, [tuple(x.shape) for x in every], [int(s) for s in scalars])
        where = f"outputs/{vkey}/{k}"
        for name, dtype in model.outputs.items():
            if name.startswith("check"):
                rec = g.tensor(int(name[5:]))
                d["outputs"].append(
                    {
                        "name": name,
                        "dtype": dtype,
                        "path": f"{where}/{name}.npy",
                        "shape": fmt.shape(planned[int(name[5:])]),
                        "lo": rec.lo,
                        "hi": rec.hi,
                    }
                )
        for j, t in enumerate(g.outputs):
            d["outputs"].append(
                {
                    "name": f"out{j}",
                    "dtype": model.outputs[f"out{j}"],
                    "path": f"{where}/out{j}.npy",
                    "shape": fmt.shape(planned[t]),
                }
            )
        try:
            seq.step(inputs, scalars)
            last_ok = k
        except Refusal:  # refused inside the graph: the host's checks say so, no state
            pass
        decodes.append(d)
    return decodes
