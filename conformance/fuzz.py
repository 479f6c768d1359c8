"""Structure-aware mutations of every input family the public API reads (WHG1 files, decodes,
``int_synth.json`` files, ``jpegai`` bundles, vector files, stage vectors among them, read by
``validate`` and by the independent checker, and a pack's results folder as a runner hands it
back), and the one property they are held to:
every input ends in a result, a ``Refusal`` with one of the spec's codes, or the documented
bad-input error (``BadInput``), never another exception; and results pass only where every
output the judge reads holds the vectors' values.

``tests/test_hostile.py`` runs a short seeded sample; ``benchmarks/fuzz.py`` runs long ones,
each input in a child process under a memory limit, and prints the counts, the worst time
and the worst memory.
"""

from __future__ import annotations

import io
import json
import os
import random
import tempfile
from pathlib import Path

import numpy as np
from waiexport.conformance.checker import check_file
from waiexport.conformance.generate import CORPUS
from waiexport.conformance.judging import judge
from waiexport.conformance.packs import make_pack
from waiexport.conformance.validate import validate
from waiexport.conformance.vectors import parse_expect, read_vectors
from waiexport.reference import decode
from waiexport.targets.engines import engine

from waiexport.builder import GraphBuilder, conv, rq
from waiexport.capabilities.examples import int_synth_source, jpegai_bundle, tiny_synth
from waiexport.capabilities.int_synth import lower_int_synth
from waiexport.capabilities.jpegai import lower_jpegai
from waiexport.descriptions import target
from waiexport.files import npy_bytes
from waiexport.jsonio import BadInput, loads, parse_decode
from waiexport.refusal import CODES, Refusal
from waiexport.whg1 import read, write

__all__ = ["FAMILIES", "mutate", "outcome", "seeds"]

#: Values a hostile writer reaches for, as integers and as JSON text.
HOSTILE = [
    0,
    1,
    -1,
    2**7,
    2**15,
    2**26,
    2**26 + 1,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**63 - 1,
    -(2**63),
    2**64,
    10**400,
]
TEXT = [
    "1" * 4301,
    "-" + "9" * 5000,
    "1e309",
    "NaN",
    "[]",
    "{}",
    '"x"',
    "null",
    "true",
    "[" * 2000 + "]" * 2000,
    "",
]


def seeds() -> dict:
    """One valid input per family, the starting points of the mutations."""
    b = GraphBuilder()
    x = b.input(2, -100, 100, max_h=6, max_w=6)
    y = b.op("conv", x, conv(np.ones((2, 2, 3, 3), int), pad=1, rq=rq(shift=2)))
    b.output(b.op("relu", y))
    small = write(b.build())
    bundle = Path(tempfile.mkdtemp()) / "jpegai"
    jpegai_bundle(bundle, c1=2, c2=2, seed=3)
    return {
        "whg1": [small, write(tiny_synth())],
        "decode": [json.dumps({"inputs": [{"data": [1] * 72, "shape": [2, 6, 6]}]})],
        "int_synth": [int_synth_source((3, 2, 3), seed=5).decode()],
        "jpegai": [
            {p.relative_to(bundle).as_posix(): p.read_text() for p in bundle.rglob("*.json")}
        ],
        "vectors": [
            line
            for f in (
                "vectors/relu.jsonl",
                "vectors/clamp.jsonl",
                "stage/block_stat.jsonl",
                "stage/coding_order.jsonl",
                "stage/residual_step.jsonl",
                "stage/band_lookup.jsonl",
            )
            for line in (CORPUS / f).read_text().splitlines()[:2]
        ]
        + [
            line
            for line in (CORPUS / "stage" / "mans_decode.jsonl").read_text().splitlines()
            if '"mode":"fac"' in line
        ][:2],
        "results": [_results_seed()],
        "_graph": [small],
    }


def _results_seed() -> tuple:
    """A pack of two corpus files for ``ort-cpu`` and the results a correct runner writes
    for it (each output the vector's expected values, in the manifest's type and shape):
    ``(files by path, the pack's folder, the vector files)``."""
    files = [CORPUS / "vectors" / "relu.jsonl", CORPUS / "vectors" / "abs.jsonl"]
    pack = Path(tempfile.mkdtemp()) / "pack"
    manifest, ident = make_pack(target("ort-cpu"), files, pack)
    vectors = {v["id"]: v for f in files for v in read_vectors(f)}
    out = {"results.json": json.dumps({"pack": ident, "ran_on": "a fuzz seed"}).encode()}
    for entry in manifest["vectors"]:
        for d, vd in zip(entry["decodes"], vectors[entry["id"]]["decodes"]):
            kind, want = parse_expect(vd)
            if "host_refuses" in d or kind != "outputs":
                continue
            for spec, a in zip(d["outputs"], want):
                out[spec["path"]] = npy_bytes(
                    np.asarray(a).reshape([int(n) for n in spec["shape"]]).astype(spec["dtype"])
                )
    return out, pack, files


def _mutate_json(rng: random.Random, text: str) -> str:
    """Replace a value of a JSON document (a number, a string, a list, an object) with a
    hostile one, or cut it."""
    kind = rng.random()
    if kind < 0.15:
        return text[: rng.randrange(len(text) + 1)]
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list) and node:
            for i in {0, len(node) - 1, rng.randrange(len(node))}:
                walk(node[i], path + [i])

    walk(doc, [])
    path = rng.choice(paths)
    if not path:
        return rng.choice(TEXT)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    choice = rng.random()
    if choice < 0.5:
        parent[path[-1]] = rng.choice(HOSTILE)
    elif choice < 0.7:
        parent[path[-1]] = rng.choice([str(rng.choice(HOSTILE)), "x", [], {}, None, True, 1.5])
    elif choice < 0.85 and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        marker = "\0MARK\0"
        parent[path[-1]] = marker
        return json.dumps(doc).replace(json.dumps(marker), rng.choice(TEXT))
    return json.dumps(doc)


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    kind = rng.random()
    if kind < 0.2:
        return bytes(data[: rng.randrange(len(data) + 1)])
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(data))
        if rng.random() < 0.5:
            data[at] = rng.randrange(256)
        else:
            value = rng.choice(HOSTILE) % 2**32
            data[at : at + 4] = value.to_bytes(4, "little")
    return bytes(data[: len(data)])


def _mutate_results(rng: random.Random, seed: tuple) -> tuple:
    """Results with one file changed (its bytes, or its JSON, or an ``.npy`` header made
    hostile), removed, or one added (beside the others, or nested 1,200 folders deep)."""
    files, pack, vector_files = seed
    files = dict(files)
    name = rng.choice(sorted(files))
    kind = rng.random()
    if kind < 0.1:
        del files[name]
    elif kind < 0.2:
        where = rng.choice(["x", "..", *name.split("/")[1:2]])
        files[f"outputs/{where}/out{rng.randrange(3)}.npy"] = files[name]
    elif kind < 0.25:
        files[rng.choice([n for n in sorted(files) if n.endswith(".npy")])] = _npy_hostile(rng)
    elif kind < 0.3:  # nested past Python's recursion limit
        files["outputs/" + "d/" * rng.choice([3, 1200]) + "out0.npy"] = files[name]
    elif name.endswith(".json"):
        files[name] = _mutate_json(rng, files[name].decode()).encode("utf-8", "surrogatepass")
    else:
        files[name] = _mutate_bytes(rng, files[name])
    return files, pack, vector_files, seed[0]


def _npy_hostile(rng: random.Random) -> bytes:
    """An ``.npy`` header that costs a reader what it says: a format 2.0 header whose length
    says up to 4 GiB, or a header of ``(`` and 9,000 ``-`` signs."""
    if rng.random() < 0.5:
        n = rng.choice([0xFFFFFFFF, 1 << 31, 10_001])
        return b"\x93NUMPY\x02\x00" + n.to_bytes(4, "little") + b"{'descr': '<i8'"
    return b"\x93NUMPY\x01\x00" + (9002).to_bytes(2, "little") + b"(" + b"-" * 9000 + b"\n"


def mutate(rng: random.Random, family: str, seed):
    """One mutated input of ``family`` from ``seed``."""
    if family == "whg1":
        return _mutate_bytes(rng, seed)
    if family == "results":
        return _mutate_results(rng, seed)
    if family == "jpegai":
        out = dict(seed)
        name = rng.choice(sorted(out))
        out[name] = _mutate_json(rng, out[name])
        return out
    return _mutate_json(rng, seed)


def outcome(family: str, item, graph: bytes) -> str:
    """Run one input through the public API: ``ok``, a spec code, or ``bad-input``. Any
    other exception propagates (the property fails)."""
    try:
        if family == "whg1":
            g = read(item)
            decode(
                g,
                [np.zeros((g.tensor(i.tensor).channels, 1, 1), np.int64) for i in g.inputs],
                [s.lo for s in g.scalars],
            )
        elif family == "decode":
            try:  # the CLI's own reading of a decode file (one line on each of these)
                doc = loads(item)
            except ValueError:
                return "bad-input"
            loaded = engine("reference").load(graph)
            inputs, scalars = parse_decode(doc, 1, 0, "decode")
            loaded.sequence().step(inputs, scalars)
        elif family == "int_synth":
            lower_int_synth(item.encode("utf-8", "surrogatepass"))
        elif family == "jpegai":
            with tempfile.TemporaryDirectory() as tmp:
                for name, text in item.items():
                    (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tmp) / name).write_text(text, "utf-8", "surrogatepass")
                lower_jpegai(Path(tmp))
        elif family == "vectors":
            with tempfile.TemporaryDirectory() as tmp:
                f = Path(tmp) / "v.jsonl"
                f.write_text(item + "\n", "utf-8", "surrogatepass")
                validate(engine("reference"), [f])
                check_file(f)
        elif family == "results":
            return _judged(*item)
    except Refusal as r:
        assert r.code in CODES, r.code
        return r.code
    except BadInput:
        return "bad-input"
    return "ok"


def _judged(files: dict, pack: Path, vector_files: list, correct: dict) -> str:
    """``ok`` when the judge passes every vector, ``fail`` when one fails; a pass holds
    only where each result the runner wrote has the correct type, shape and values."""
    tmp = Path(tempfile.mkdtemp())
    try:
        for name, data in files.items():
            path = tmp / name
            if path.resolve().is_relative_to(tmp.resolve()):
                for folder in reversed(path.relative_to(tmp).parents[:-1]):
                    (tmp / folder).mkdir(exist_ok=True)  # one at a time: 1,200 deep
                path.write_bytes(data)
        outcomes, _, problems = judge(pack, tmp, vector_files)
    finally:
        _remove(tmp)
    if problems or any(o.status != "pass" for o in outcomes):
        return "fail"
    for name, data in correct.items():
        if name.endswith(".npy"):
            got, want = (np.load(io.BytesIO(b)) for b in (files[name], data))
            assert got.dtype == want.dtype and got.shape == want.shape and (got == want).all(), (
                f"a pass on a changed result {name}"
            )
    return "ok"


def _remove(root: Path) -> None:
    """Remove the folder ``root`` and all below it, without recursion (Python 3.11's
    ``shutil.rmtree`` recurses, past its limit on a tree 1,200 deep)."""
    stack, folders = [root], []
    while stack:
        folders.append(stack.pop())
        for e in os.scandir(folders[-1]):
            if e.is_dir(follow_symlinks=False):
                stack.append(Path(e.path))
            else:
                os.unlink(e.path)
    for folder in reversed(folders):
        os.rmdir(folder)


FAMILIES = ("whg1", "decode", "int_synth", "jpegai", "vectors", "results")
