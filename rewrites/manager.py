"""The rewrite manager: certificate → the rewrites a target needs, in a fixed order → a new
certificate → what still does not fit (:class:`waiexport.limits.Limit`).

The order is fixed: phase convolutions first (they create ``RQ`` blocks), then for each
``RQ``: post bias → pre bias, negative multiplier, shift range, floor → half_up. A rewrite that
would take an ``acc32`` graph out of ``acc32`` is not applied, and is reported. The result is
written with §13.0's tensor numbering, so its bytes are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from waiexport.bounds.live import LiveBounds
from waiexport.certificate import Member, certify
from waiexport.descriptions import Target
from waiexport.graph import Graph
from waiexport.jsonio import ascii_text
from waiexport.limits import limits
from waiexport.refusal import Refusal
from waiexport.whg1 import write

from .floor_to_half_up import FloorToHalfUp
from .negative_multiplier import NegativeMultiplier
from .phase_conv import PhaseConvolution
from .post_bias import PostToPreBias
from .shift_range import ShiftRange

__all__ = ["ORDER", "Change", "RewriteOutcome", "rewrite_for"]

#: The rewrites, in the order they are tried: the first on every node, then the others on
#: each node in turn.
ORDER = (PhaseConvolution(), PostToPreBias(), NegativeMultiplier(), ShiftRange(), FloorToHalfUp())


@dataclass
class Change:
    """One rewrite tried on one node (``node`` is its index in the input graph)."""

    node: int
    op: str
    rewrite: str
    key: str
    applied: bool
    reason: str | None = None

    def as_json(self) -> dict:
        """The one JSON shape of a change, as ``rewrite --json`` and ``export --json`` print
        it."""
        return {
            "applied": self.applied,
            "node": self.node,
            "op": self.op,
            "reason": ascii_text(self.reason or ""),
            "rewrite": self.key,
        }


@dataclass
class RewriteOutcome:
    """What the manager did: the rewritten graph, its bytes and its bounds, both
    certificates, every rewrite tried, and each node that still breaks a limit (index in
    the rewritten graph)."""

    graph: Graph
    data: bytes
    before: dict
    after: dict
    changes: list = field(default_factory=list)
    remaining: list = field(default_factory=list)
    sources: list = field(default_factory=list)  # each rewritten node's source index
    member: Member | None = None  # the rewritten graph, loaded and bounded

    def label(self, k: int) -> str:
        """Node ``k`` of the rewritten graph by its source index: ``node 3 (now 2)``."""
        src = self.sources[k] if k < len(self.sources) else k
        return f"node {src}" if src == k else f"node {src} (now {k})"

    def changed(self, c: Change) -> str:
        """A change's node as every line names it: its source index, and its index now
        where the node it changed has one of its own in the rewritten graph (a phase
        convolution)."""
        now = [
            k
            for k, src in enumerate(self.sources)
            if src == c.node and self.graph.ops[k].name == c.op
        ]
        return self.label(now[0]) if now else f"node {c.node}"


def rewrite_for(source: Graph | Member, target: Target, name: str = "graph") -> RewriteOutcome:
    """Apply the exact rewrites ``target`` needs to ``source`` (a graph that loaded, or a
    loaded :class:`~waiexport.certificate.Member`, whose bounds are then not derived again;
    it is not changed), and say what still does not fit.

    Each trial is applied in place and undone when declined (:meth:`Graph.journal`), and
    only what it reaches is re-derived (:class:`~waiexport.bounds.live.LiveBounds`): the
    manager does no bounds pass of its own, and its rule evaluations grow with the graph,
    not with its square."""
    member = source if isinstance(source, Member) else Member.of(name, write(source), source)
    before = certify([member])
    keep_acc32 = before["verdict"]["acc32"]
    work = member.graph.copy()
    live = LiveBounds(work, member.bounds)
    origin = {op.uid: op.index for op in work.ops}
    changes = []

    def attempt(rule, uid):
        op = work.op(uid)
        if op.name not in rule.ops or not rule.needed(op, target):
            return
        reason = rule.check(op, work, target)
        if reason is None:
            known = set(work.nx.graph["order"])
            with work.journal() as change:
                rule.apply(op, work, target)
            try:
                saved = live.rederive(change.touched, change.removed)
                if keep_acc32 and live.failing:
                    live.restore(saved)
                    reason = "it would take the graph out of acc32"
            except Refusal as r:
                reason = f"it would make the graph refused at load: {r}"
            if reason is None:
                origin.update((new, origin[uid]) for new in set(work.nx.graph["order"]) - known)
            else:
                change.undo()
        changes.append(Change(origin[uid], op.name, rule.name, rule.key, reason is None, reason))

    phase, *per_rq = ORDER
    for uid in list(work.nx.graph["order"]):
        attempt(phase, uid)
    for uid in list(work.nx.graph["order"]):
        for rule in per_rq:
            attempt(rule, uid)
    sources = [origin[uid] for uid in work.nx.graph["order"]]
    final = work.renumbered()
    data = write(final)
    after_member = Member(name, data, final, live.renumbered(final))
    after = certify([after_member])
    remaining = []
    for op, nb in zip(final.ops, after_member.bounds.nodes):
        broken = limits(op, nb, final, target)
        if broken:
            remaining.append((op.index, op.name, broken))
    return RewriteOutcome(final, data, before, after, changes, remaining, sources, after_member)
