"""The bounds pass of a graph under rewrite, kept current by re-deriving only what a change
reaches: the operators it touched, then each operator that reads a tensor whose interval
changed, in graph order. A trial that leaves a node's output intervals as they were costs
that node's rule and nothing downstream, so a rewrite pass over ``n`` operators does
``O(n)`` rule evaluations, not a whole pass per trial."""

from __future__ import annotations

import heapq

from ..graph import Graph
from ..profiles import node_fits
from ..refusal import Refusal
from . import GraphBounds, NodeBounds, evaluate

__all__ = ["LiveBounds"]


class LiveBounds:
    """The bounds of ``g`` (from the pass ``gb`` over it), by operator node and tensor.
    ``evaluations`` counts the rules run since it was made; ``failing`` holds the nodes that
    miss ``acc32`` (§8.5)."""

    def __init__(self, g: Graph, gb: GraphBounds):
        self.g, self.shapes = g, gb.shapes
        self.tensors = dict(gb.tensors)
        self.nodes = {op.uid: nb for op, nb in zip(g.ops, gb.nodes)}
        self.failing = {uid for uid, nb in self.nodes.items() if not node_fits(nb, g, "acc32")}
        self.evaluations = 0

    def rederive(self, touched: set, removed: set = frozenset()) -> dict:
        """Re-derive the nodes ``touched`` (new or changed) and whatever their changes reach,
        forgetting the nodes ``removed``; returns what it replaced, for :meth:`restore`.
        Raises :class:`~waiexport.refusal.Refusal` where a load step 8 check now fails, the
        bounds then as they were."""
        saved = {"nodes": {}, "tensors": {}, "failing": set(self.failing)}
        try:
            self._rederive(touched, removed, saved)
        except Refusal:
            self.restore(saved)
            raise
        return saved

    def _rederive(self, touched: set, removed: set, saved: dict) -> None:
        g, position = self.g, self.g._position()
        for uid in removed:
            saved["nodes"][uid] = self.nodes.pop(uid, None)
        queue = [(position[uid], uid) for uid in touched if uid in position]
        heapq.heapify(queue)
        seen = set()
        while queue:
            _, uid = heapq.heappop(queue)
            if uid in seen:
                continue
            seen.add(uid)
            op = g.op(uid)
            self.evaluations += 1
            nb = evaluate(op, [self.tensors[t] for t in op.inputs], g, self.shapes)
            saved["nodes"].setdefault(uid, self.nodes.get(uid))
            self.nodes[uid] = nb
            (self.failing.discard if node_fits(nb, g, "acc32") else self.failing.add)(uid)
            for t, out in zip(op.outputs, nb.outs):
                if self.tensors.get(t) == out:
                    continue
                saved["tensors"].setdefault(t, self.tensors.get(t))
                self.tensors[t] = out
                for reader, _ in g.consumers(t):
                    heapq.heappush(queue, (position[reader], reader))

    def restore(self, saved: dict) -> None:
        """Undo a :meth:`rederive` (after its change to the graph was undone)."""
        for store, items in ((self.nodes, saved["nodes"]), (self.tensors, saved["tensors"])):
            for key, value in items.items():
                if value is None:
                    store.pop(key, None)
                else:
                    store[key] = value
        self.failing = saved["failing"]

    def renumbered(self, final: Graph) -> GraphBounds:
        """The bounds of ``final``, ``g`` renumbered (:meth:`Graph.renumbered`), as a pass
        over it would give them: every node's result, and every tensor's interval under its
        new index."""
        ops = self.g.ops
        old = [i.tensor for i in self.g.inputs] + [t for o in ops for t in o.outputs]
        new = {t: k for k, t in enumerate(old)}
        nodes = [
            NodeBounds(fop, nb.result, nb.outs, nb.saturated)
            for fop, nb in zip(final.ops, (self.nodes[o.uid] for o in ops))
        ]
        shapes = (
            None if self.shapes is None else {new[t]: s for t, s in self.shapes.items() if t in new}
        )
        return GraphBounds(
            final, {new[t]: iv for t, iv in self.tensors.items() if t in new}, nodes, shapes
        )
