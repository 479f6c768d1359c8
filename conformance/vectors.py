"""The vector files of §14.1: JSON Lines of canonical JSON, one vector per line.

``make_vector`` computes a vector's ``load``, ``profiles`` and every ``expect`` from its graph
bytes and inputs. The generator runs it with the vectorised reference and the few-sums bounds
pass; the independent checker with the literal evaluator and the term-by-term fold (§14.1,
*Who writes the vectors*).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from waiexport.bounds import certify_graph
from waiexport.certificate import Member, verdict_of
from waiexport.files import read_bounded
from waiexport.jsonio import (
    BadInput,
    ascii_text,
    dumps,
    loads,
    parse_decode,
    parse_int,
    parse_tensor,
    tensor_json,
)
from waiexport.load import read_member
from waiexport.plan import run_plan
from waiexport.reference import Decoder, decode
from waiexport.refusal import CODES, Refusal
from waiexport.whg1 import read

from .stage_vectors import parse_stage

__all__ = ["load_outcome", "make_vector", "write_lines", "read_vectors", "vector_inputs"]

BOTH = ["acc32", "acc64"]


def load_outcome(data: bytes, literal: bool = False):
    """``(load, profiles, graph, verdict)``: the code a load refuses with under every profile,
    or ``"ok"`` with the profiles the verdict meets (§14.1)."""
    try:
        g = read(data)
        bounds = certify_graph(g, literal=literal)
    except Refusal as r:
        return r.code, BOTH, None, None
    verdict = verdict_of([Member("graph", data, g, bounds)])
    if not verdict["acc64"]:
        return "model_mismatch", BOTH, None, verdict
    return "ok", [p for p in BOTH if verdict[p]], g, verdict


def make_vector(vid: str, data: bytes, decodes: list, literal: bool = False) -> dict:
    """One vector: ``decodes`` are ``(data inputs, scalars)`` of one sequence (§10.3)."""
    load, profiles, g, _ = load_outcome(data, literal)
    out = {"decodes": [], "graph": data.hex(), "id": vid, "load": load, "profiles": profiles}
    if g is None:
        return out
    seq = Decoder(g, engine=lambda gr, i, s: decode(gr, i, s, literal=literal))
    for inputs, scalars in decodes:
        try:
            expect = {"outputs": [tensor_json(o) for o in seq.step(inputs, scalars)]}
        except Refusal as r:
            expect = {"refuse": r.code}
        out["decodes"].append(
            {
                "expect": expect,
                "inputs": [tensor_json(np.asarray(x)) for x in inputs],
                "scalars": [int(s) for s in scalars],
            }
        )
    return out


def write_lines(vectors: list[dict]) -> bytes:
    """The file's bytes: one canonical line per vector, each ending with a line feed."""
    return "".join(dumps(v) + "\n" for v in vectors).encode("ascii")


#: The largest vector file read: sixteen times the whole committed corpus.
FILE_LIMIT = 64 << 20


def vector_bytes(path: Path) -> bytes:
    """The bytes of the vector file ``path`` as every command reads one: a regular file (a
    link to one followed), at most :data:`FILE_LIMIT` bytes; ``BadInput`` naming it."""
    try:
        return read_bounded(path, FILE_LIMIT)
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror or e}") from None


def read_vectors(path: Path, data: bytes | None = None) -> list[dict]:
    """Every vector of a ``.jsonl`` file (or of its bytes ``data``, already read), graph or
    stage vectors (a line with ``op``, read by :func:`.stage_vectors.parse_stage`);
    ``BadInput`` names the file, and the line that is not a vector: one that does not parse,
    or a last line cut before its line feed (§14.1). Only a regular file of at most
    :data:`FILE_LIMIT` bytes is read."""
    if data is None:
        data = vector_bytes(path)
    lines = data.split(b"\n")
    if lines[-1]:
        raise BadInput(f"{path}:{len(lines)}: the last line is cut (no line feed at its end)")
    vectors = []
    first_line: dict = {}
    for n, line in enumerate(lines[:-1], 1):
        try:
            v = loads(line)
        except ValueError as e:
            raise BadInput(f"{path}:{n}: not JSON: {str(e)[:200]}") from None
        vid = v.get("id") if isinstance(v, dict) else None
        if isinstance(vid, str) and vid in first_line:
            raise BadInput(
                f"{path}:{n}: vector {vid[:60]!r}: the id of line "
                f"{first_line[vid]} again (an id is unique in its file, §14.1)"
            )
        if isinstance(vid, str):
            first_line[vid] = n
        if isinstance(v, dict) and "op" in v:
            vectors.append(parse_stage(v, f"{path}:{n}: stage vector {str(v.get('id'))[:60]!r}"))
            continue
        if not (
            isinstance(v, dict)
            and isinstance(v.get("graph"), str)
            and isinstance(v.get("id"), str)
            and isinstance(v.get("load"), str)
            and isinstance(v.get("profiles"), list)
            and isinstance(v.get("decodes", []), list)
        ):
            raise BadInput(f"{path}:{n}: not a vector (graph, id, load, profiles, decodes)")
        try:
            v["graph_bytes"] = bytes.fromhex(v["graph"])
        except ValueError:
            raise BadInput(f"{path}:{n}: graph is not hexadecimal") from None
        _check(v, f"{path}:{n}: vector {v['id'][:60]!r}")
        vectors.append(v)
    return vectors


def _check(v: dict, where: str) -> None:
    """§14.1's vector format, every member, and its structure against its graph
    (:func:`_structure`); ``BadInput`` says which is wrong. A vector read here runs without
    another check of its members."""
    if (
        not v["profiles"]
        or not all(isinstance(p, str) for p in v["profiles"])
        or not set(v["profiles"]) <= {"acc32", "acc64"}
    ):
        raise BadInput(f"{where}: profiles {str(v['profiles'])[:80]} are not acc32 / acc64")
    if v["load"] != "ok" and v["load"] not in CODES:
        raise BadInput(
            f"{where}: load {v['load'][:40]!r} is neither ok nor a refusal code "
            f"({', '.join(sorted(CODES))})"
        )
    if v["load"] != "ok" and v.get("decodes"):
        raise BadInput(f"{where}: a vector whose load is refused has no decodes (§14.1)")
    if v["load"] == "ok" and not v.get("decodes"):
        raise BadInput(f"{where}: load ok with no decodes")
    for k, d in enumerate(v.get("decodes", [])):
        at = f"{where} decode {k}"
        if not isinstance(d, dict) or not isinstance(d.get("expect"), dict):
            raise BadInput(f"{at}: a decode is an object with an expect")
        if not isinstance(d.get("inputs"), list) or not isinstance(d.get("scalars", []), list):
            raise BadInput(f"{at}: inputs and scalars are lists")
        for i, t in enumerate(d["inputs"]):
            parse_tensor(t, f"{at} input {i}")
        for j, x in enumerate(d.get("scalars", [])):
            parse_int(x, f"{at} scalar {j}")
        e = d["expect"]
        if set(e) == {"refuse"} and isinstance(e["refuse"], str):
            if e["refuse"] not in CODES:
                raise BadInput(
                    f"{at}: expect refuse {ascii_text(e['refuse'])[:40]!r} is not a "
                    f"refusal code ({', '.join(sorted(CODES))})"
                )
            continue
        if set(e) != {"outputs"} or not isinstance(e["outputs"], list):
            raise BadInput(f'{at}: expect is {{"outputs": [...]}} or {{"refuse": code}}')
        d[_EXPECTED] = [
            parse_tensor(t, f"{at} expected output {j}") for j, t in enumerate(e["outputs"])
        ]
    if v["load"] == "ok":
        _structure(v, where)


def _structure(v: dict, where: str) -> None:
    """A vector that loads has the structure its graph gives it (§14.1): every decode the
    graph's data inputs and scalars, and every expected output, one per graph output in the
    shape §4's plan gives it (state carried as §10.3 carries it). A vector that does not
    cannot be passed by an engine that returns fewer, more or other-shaped outputs."""
    try:
        g = read_member(v["graph_bytes"]).graph
    except Refusal as r:
        raise BadInput(f"{where}: load ok, but its graph is refused at load: {r}") from None
    state: dict = {}
    for k, ((inputs, scalars), d) in enumerate(zip(vector_inputs(v, g, where), v["decodes"])):
        at = f"{where} decode {k}"
        h, w = inputs[0].shape[1:] if inputs else (1, 1)
        given = iter(inputs)
        shapes = [
            tuple(next(given).shape)
            if i.kind == "data"
            else state.get(n, (g.tensor(i.tensor).channels, h, w))
            for n, i in enumerate(g.inputs)
        ]
        try:
            planned = run_plan(g, shapes, scalars)
        except Refusal as r:
            if "outputs" in d["expect"]:
                raise BadInput(f"{at}: expects outputs, but its plan refuses ({r})") from None
            continue
        if "refuse" in d["expect"]:
            continue
        outs = d["expect"]["outputs"]
        if len(outs) != len(g.outputs):
            raise BadInput(
                f"{at}: {len(outs)} expected outputs for a graph of {len(g.outputs)} outputs"
            )
        for j, (t, tensor) in enumerate(zip(outs, g.outputs)):
            shape = [int(n) for n in t["shape"]]
            if shape != list(planned[tensor]):
                raise BadInput(
                    f"{at}: expected output {j} has shape {shape}; the graph "
                    f"gives {list(planned[tensor])}"
                )
        for n, i in enumerate(g.inputs):
            if i.kind == "state":
                state[n] = tuple(planned[g.outputs[i.src]])


#: Where a decode read by :func:`read_vectors` keeps its parsed tensors: each vector is
#: run by several engines, and its tensors were parsed up to five times (a tenth of a
#: second of ``examples run``). Every caller gets its own copies, so no engine sees what
#: another did to them.
_INPUTS, _EXPECTED = "_parsed_inputs", "_parsed_expected"


def vector_inputs(v: dict, g, where: str | None = None) -> list:
    """A vector's decodes as ``(data inputs, scalars)``, read against its graph."""
    counts = (sum(1 for i in g.inputs if i.kind == "data"), len(g.scalars))
    out = []
    for k, d in enumerate(v.get("decodes", [])):
        if d.get(_INPUTS, (None,))[0] != counts:
            d[_INPUTS] = counts, parse_decode(d, *counts, f"{where or v['id']} decode {k}")
        inputs, scalars = d[_INPUTS][1]
        out.append(([x.copy() for x in inputs], list(scalars)))
    return out


def parse_expect(d: dict):
    """A decode's ``expect``: ``("refuse", code)`` or ``("outputs", [arrays])``."""
    e = d["expect"]
    if "refuse" in e:
        return "refuse", e["refuse"]
    if _EXPECTED not in d:
        d[_EXPECTED] = [parse_tensor(t, f"expected output {j}") for j, t in enumerate(e["outputs"])]
    return "outputs", [x.copy() for x in d[_EXPECTED]]
