"""The bounds certificate (§8.5): one set's graphs, their nodes' intervals, the verdict for
``acc32``, ``acc64`` and ``wai-ops/1-npu``, as canonical JSON."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .bounds import GraphBounds, bits, certify_graph
from .graph import Graph
from .jsonio import dumps
from .optable import info
from .profiles import PROFILES, acc32_params, failing, fits_class, node_fits, npu_flags, npu_reasons

__all__ = ["Member", "Failure", "Verdict", "certify", "certificate_bytes", "verdict_of"]


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
        "out": [
            {**_iv(out), "policy": g.tensor(t).policy, "result": _iv(r), "tensor": t}
            for t, out, r in zip(op.outputs, nb.outs, res.results)
        ],
        "saturated": nb.saturated,
    }
    if info(op.name).k_c:
        node["k_c"] = _k_c(res.k_c)
    if info(op.name).mac:
        node["mac"] = res.mac.as_json()
    return node


def _graph(m: Member) -> dict:
    g = m.graph
    inputs = []
    for inp in g.inputs:
        rec = g.tensor(inp.tensor)
        entry = {
            "hi": rec.hi,
            "kind": inp.kind,
            "lo": rec.lo,
            "max_h": inp.max_h,
            "max_w": inp.max_w,
            "policy": rec.policy,
            "tensor": inp.tensor,
        }
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


@dataclass(frozen=True)
class Failure:
    """§8.5's first failure of a profile: where (``input``, ``scalar`` or ``node``), its
    index, the graph, the key that misses (an intermediate, ``range``, ``saturated``, a
    parameter condition, ``policy.check``) and, for an interval, its bits."""

    where: str
    index: int
    graph: str
    key: str
    bits: int | None = None

    def as_json(self) -> dict:
        return {"graph": self.graph, "index": self.index, "key": self.key, "where": self.where} | (
            {} if self.bits is None else {"bits": self.bits}
        )

    @property
    def place(self) -> str:
        """``operator 3``, ``input 0`` or ``scalar 1``."""
        return f"operator {self.index}" if self.where == "node" else f"{self.where} {self.index}"


def _first_failure(members: list[Member], profile: str) -> Failure | None:
    """§8.5: inputs, then scalars, then nodes, graph by graph; the first that misses."""
    for m in members:
        g = m.graph
        for i, inp in enumerate(g.inputs):
            rec = g.tensor(inp.tensor)
            if not fits_class((rec.lo, rec.hi), "tensor", profile):
                return Failure("input", i, m.name, "range", bits((rec.lo, rec.hi)))
        for j, s in enumerate(g.scalars):
            if not fits_class((s.lo, s.hi), "tensor", profile):
                return Failure("scalar", j, m.name, "range", bits((s.lo, s.hi)))
        for nb in m.bounds.nodes:
            if node_fits(nb, g, profile):
                continue
            if nb.saturated:
                return Failure("node", nb.op.index, m.name, "saturated")
            bad = failing(nb, profile)
            if bad:
                key, iv = min(bad, key=lambda kv: (-bits(kv[1]), kv[0].encode()))
                return Failure("node", nb.op.index, m.name, key, bits(iv))
            params = acc32_params(nb.op)
            return Failure("node", nb.op.index, m.name, params[0] if params else "policy.check")
    return None


@dataclass(frozen=True)
class Verdict:
    """The §8.5 verdict over a set's graphs: each profile met or its first failure, and
    whether the set is in ``wai-ops/1-npu`` with the reasons and flags."""

    failures: dict  # profile → Failure, or None where the profile is met
    npu_reasons: tuple
    npu_flags: tuple

    @classmethod
    def over(cls, members: list[Member]) -> "Verdict":
        failures = {p: _first_failure(members, p) for p in PROFILES}
        reasons = {"acc32"} if failures["acc32"] is not None else set()
        flags = set()
        for m in members:
            for nb in m.bounds.nodes:
                reasons.update(npu_reasons(nb.op, m.graph))
                flags.update(npu_flags(nb.op, m.graph))
        return cls(failures, tuple(sorted(reasons)), tuple(sorted(flags)))

    def meets(self, profile: str) -> bool:
        return self.failures[profile] is None

    @property
    def npu(self) -> bool:
        return not self.npu_reasons

    def as_json(self) -> dict:
        out: dict = {}
        for profile, failure in self.failures.items():
            out[profile] = failure is None
            if failure is not None:
                out[f"{profile}_first_failure"] = failure.as_json()
        return out | {
            "npu": self.npu,
            "npu_flags": list(self.npu_flags),
            "npu_reasons": list(self.npu_reasons),
        }


def verdict_of(members: list[Member]) -> dict:
    """The §8.5 verdict over a set's graphs, as the certificate writes it."""
    return Verdict.over(members).as_json()


def certify(
    members: list[Member],
    *,
    capability: str | None = None,
    set_sha256: str | None = None,
    lowering: str = "whg1",
) -> dict:
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
