"""The bounds certificate (§8.5): one set's graphs, their nodes' intervals, the verdict for
``acc32``, ``acc64`` and ``wai-ops/1-npu``, as canonical JSON."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .bounds import GraphBounds, bits, certify_graph
from .graph import Graph
from .jsonio import dumps
from .profiles import (PROFILES, acc32_params, failing, fits_class, node_fits, npu_flags,
                       npu_reasons)

__all__ = ["Member", "certify", "certificate_bytes", "verdict_of"]

K_C_OPS = ("conv", "conv_transpose", "igdn", "gram", "apply")
MAC_OPS = ("conv", "conv_transpose", "chscale", "mul", "gram", "apply")


@dataclass
class Member:
    """One graph of a set: its role, its WHG1 bytes, the loaded graph and its bounds."""

    name: str
    data: bytes
    graph: Graph
    bounds: GraphBounds

    @classmethod
    def of(cls, name: str, data: bytes, graph: Graph) -> "Member":
        return cls(name, data, graph, certify_graph(graph))


def _iv(iv) -> dict:
    return {"bits": bits(iv), "hi": iv[1], "lo": iv[0]}


def _k_c(term) -> int | str:
    p = max(abs(term[0]), abs(term[1]))
    return "unbounded" if p == 0 else ((1 << 31) - 1) // p


def _node(nb, g: Graph) -> dict:
    op, res = nb.op, nb.result
    node = {
        "acc32_params": acc32_params(op),
        "fits": [p for p in PROFILES if node_fits(nb, g, p)],
        "index": op.index,
        "intermediates": {k: _iv(iv) for k, iv in res.intermediates.items()},
        "npu_flags": npu_flags(op, g),
        "op": op.name,
        "out": [{**_iv(out), "policy": g.tensor(t).policy, "result": _iv(r), "tensor": t}
                for t, out, r in zip(op.outputs, nb.outs, res.results)],
        "saturated": nb.saturated,
    }
    if op.name in K_C_OPS:
        node["k_c"] = _k_c(res.k_c)
    if op.name in MAC_OPS:
        node["mac"] = res.mac
    return node


def _graph(m: Member) -> dict:
    g = m.graph
    inputs = []
    for inp in g.inputs:
        rec = g.tensor(inp.tensor)
        entry = {"hi": rec.hi, "kind": inp.kind, "lo": rec.lo, "max_h": inp.max_h,
                 "max_w": inp.max_w, "policy": rec.policy, "tensor": inp.tensor}
        if inp.kind == "state":
            entry |= {"init": inp.init, "src": inp.src}
        inputs.append(entry)
    return {
        "graph_sha256": hashlib.sha256(m.data).hexdigest(),
        "inputs": inputs,
        "name": m.name,
        "nodes": [_node(nb, g) for nb in m.bounds.nodes],
        "scalars": [{"hi": s.hi, "index": j, "lo": s.lo} for j, s in enumerate(g.scalars)],
    }


def _first_failure(members: list[Member], profile: str) -> dict | None:
    """§8.5: inputs, then scalars, then nodes, graph by graph; the first that misses."""
    for m in members:
        g = m.graph
        for i, inp in enumerate(g.inputs):
            rec = g.tensor(inp.tensor)
            if not fits_class((rec.lo, rec.hi), "tensor", profile):
                return {"bits": bits((rec.lo, rec.hi)), "graph": m.name, "index": i,
                        "key": "range", "where": "input"}
        for j, s in enumerate(g.scalars):
            if not fits_class((s.lo, s.hi), "tensor", profile):
                return {"bits": bits((s.lo, s.hi)), "graph": m.name, "index": j,
                        "key": "range", "where": "scalar"}
        for nb in m.bounds.nodes:
            if node_fits(nb, g, profile):
                continue
            where = {"graph": m.name, "index": nb.op.index, "where": "node"}
            if nb.saturated:
                return {**where, "key": "saturated"}
            bad = failing(nb, profile)
            if bad:
                key, iv = min(bad, key=lambda kv: (-bits(kv[1]), kv[0].encode()))
                return {**where, "bits": bits(iv), "key": key}
            params = acc32_params(nb.op)
            return {**where, "key": params[0] if params else "policy.check"}
    return None


def verdict_of(members: list[Member]) -> dict:
    """The §8.5 verdict over a set's graphs."""
    verdict: dict = {}
    for profile in PROFILES:
        failure = _first_failure(members, profile)
        verdict[profile] = failure is None
        if failure is not None:
            verdict[f"{profile}_first_failure"] = failure
    reasons = {"acc32"} if not verdict["acc32"] else set()
    flags = set()
    for m in members:
        for nb in m.bounds.nodes:
            reasons.update(npu_reasons(nb.op, m.graph))
            flags.update(npu_flags(nb.op, m.graph))
    verdict |= {"npu": not reasons, "npu_flags": sorted(flags), "npu_reasons": sorted(reasons)}
    return verdict


def certify(members: list[Member], *, capability: str | None = None,
            set_sha256: str | None = None, lowering: str = "whg1") -> dict:
    """The certificate of a set (§8.5), as a JSON-ready dict (see :func:`certificate_bytes`)."""
    return {
        "capability": capability,
        "certificate": "wai-ops/1 bounds",
        "graphs": [_graph(m) for m in members],
        "lowering": lowering,
        "set_sha256": set_sha256,
        "verdict": verdict_of(members),
    }


def certificate_bytes(cert: dict) -> bytes:
    """The certificate's canonical bytes: no whitespace, no final newline (§8.5)."""
    return dumps(cert).encode("ascii")
