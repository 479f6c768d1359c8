"""The bounds pass (§8.1–§8.3): every tensor's interval, every node's producer results and
named intermediates, visiting operators in graph order. One rule per operator, by name, in
the family modules below; :data:`RULES` is the table.

``certify_graph`` is load step 8's pass (§10.5): it refuses (``model_mismatch``) a ``lut16``
whose input's certified range leaves ``[−32767, 32767]`` (§5.6) and a ``check`` tensor whose
interval after its policy is empty (§8.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..graph import Graph, Op
from ..plan import load_plan
from ..refusal import Refusal
from ..work import CALLS
from . import elementwise, linear, movement, normalisation, requant
from .interval import LIMIT, Iv, Sat, bits, hull
from .result import Result

__all__ = [
    "RULES",
    "NodeBounds",
    "GraphBounds",
    "certify_graph",
    "evaluate",
    "policy_interval",
    "RuleCtx",
    "Iv",
    "bits",
    "hull",
    "LIMIT",
]

RULES = {
    **linear.RULES,
    **requant.RULES,
    **elementwise.RULES,
    **normalisation.RULES,
    **movement.RULES,
}


@dataclass(frozen=True)
class RuleCtx:
    """What a rule reads beside its inputs' intervals: the node's saturating arithmetic, the
    scalars' declared ranges, the shapes planned on the declared sizes (``None`` without)."""

    sat: Sat
    scalars: tuple
    shapes: dict | None
    graph: Graph
    literal: bool = False

    def channels(self, t: int) -> int:
        return self.graph.tensor(t).channels


@dataclass
class NodeBounds:
    """One operator's bounds: its rule's result, its outputs' intervals after their policies,
    and whether any primitive saturated (§8.1)."""

    op: Op
    result: Result
    outs: list
    saturated: bool


@dataclass
class GraphBounds:
    """The pass over one graph: every tensor's interval, every node's bounds, and the shapes
    planned on the declared sizes the rules read (``None`` without)."""

    graph: Graph
    tensors: dict
    nodes: list
    shapes: dict | None = None


def policy_interval(iv: Iv, rec) -> Iv:
    """A tensor's interval from its producer result and its policy (§8.1); an empty ``check``
    interval comes back with ``lo > hi``."""
    a, b = iv
    if rec.policy == "clamp":
        return (min(max(a, rec.lo), rec.hi), min(max(b, rec.lo), rec.hi))
    if rec.policy == "check":
        return (max(a, rec.lo), min(b, rec.hi))
    return iv


def run_rule(op: Op, ins: list, g: Graph, shapes, literal: bool = False) -> tuple[Result, bool]:
    """One operator's rule on the input intervals ``ins``; returns the result and whether it
    saturated."""
    CALLS["rule"] += 1
    sat = Sat()
    res = RULES[op.name](op, ins, RuleCtx(sat, g.scalars, shapes, g, literal))
    return res, sat.hit


def evaluate(op: Op, ins: list, g: Graph, shapes, literal: bool = False) -> NodeBounds:
    """One node of the pass: its rule on its inputs' intervals ``ins`` and its outputs'
    intervals after their policies, with load step 8's two refusals (§5.6, §8.1)."""
    where = f"operator {op.index} ({op.name})"
    if op.name == "lut16" and not (-32767 <= ins[0][0] and ins[0][1] <= 32767):
        raise Refusal(
            "model_mismatch",
            where,
            f"input range [{ins[0][0]}, {ins[0][1]}] is not within [-32767, 32767] (§5.6)",
        )
    res, saturated = run_rule(op, ins, g, shapes, literal)
    outs = []
    for t, iv in zip(op.outputs, res.results):
        out = policy_interval(iv, g.tensor(t))
        if out[0] > out[1]:
            rec = g.tensor(t)
            raise Refusal(
                "model_mismatch",
                where,
                f"tensor {t}'s check range [{rec.lo}, "
                f"{rec.hi}] misses its producer's [{iv[0]}, {iv[1]}]: every "
                "input would be refused (§8.1)",
            )
        outs.append(out)
    return NodeBounds(op, res, outs, saturated)


def certify_graph(g: Graph, literal: bool = False) -> GraphBounds:
    """The bounds pass over ``g`` (§8.1–§8.3), with load step 8's two refusals. ``literal``
    folds every partial-sum interval term by term (§8.2) instead of from a few sums: the
    independent checker's way."""
    CALLS["pass"] += 1
    shapes = load_plan(g)
    tensors = {inp.tensor: (g.tensor(inp.tensor).lo, g.tensor(inp.tensor).hi) for inp in g.inputs}
    nodes = []
    for op in g.ops:
        nb = evaluate(op, [tensors[t] for t in op.inputs], g, shapes, literal)
        tensors.update(zip(op.outputs, nb.outs))
        nodes.append(nb)
    return GraphBounds(g, tensors, nodes, shapes)
