"""The graph model every stage shares (DESIGN.md): a networkx ``MultiDiGraph`` of tensor and
operator nodes, with the WHG1 tables (§10.2) as graph attributes.

Tensor nodes are the tensor indices (``int``); operator nodes are ``("op", n)``. An edge from a
tensor to an operator has the key ``("in", slot)``; from an operator to a tensor, ``("out",
slot)``, so an operator may read one tensor twice (``add x x``). Evaluation order is the list
``order`` (the WHG1 operator order).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Iterable, Iterator, Mapping, Sequence

import networkx as nx

from .params import Params

__all__ = ["Tensor", "Scalar", "Input", "Op", "Graph", "POLICIES", "MAX_ELEMS"]

POLICIES = ("derived", "clamp", "check")
MAX_ELEMS = 1 << 26


@dataclass(frozen=True)
class Tensor:
    """A tensor record (§10.2): channel count, exponent (``None`` for none), policy, range."""

    channels: int
    exponent: int | None = None
    policy: str = "derived"
    lo: int = 0
    hi: int = 0


@dataclass(frozen=True)
class Scalar:
    """A scalar record (§10.2): the declared range of a value the driver supplies."""

    lo: int
    hi: int


@dataclass(frozen=True)
class Input:
    """An input record (§10.2). ``kind`` is ``"data"`` or ``"state"``; ``src`` and ``init``
    are a state input's feeding output and initial value (0 for data)."""

    tensor: int
    max_h: int = 0
    max_w: int = 0
    kind: str = "data"
    src: int = 0
    init: int = 0


@dataclass(frozen=True)
class Op:
    """An operator as the graph holds it: ``uid`` is its node, ``index`` its position in
    evaluation order."""

    uid: tuple
    index: int
    name: str
    params: Params
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


class Graph:
    """One ``wai-ops/1`` graph.

    Parameters
    ----------
    tensors : sequence or mapping of Tensor
        Tensor records by index.
    inputs, outputs, scalars : sequences
        The input table (:class:`Input`), the output table (tensor indices) and the scalar
        table (:class:`Scalar`), in table order.
    ops : iterable of (name, inputs, outputs, params)
        The operators in evaluation order.
    max_elems : int
        The header's cap on every tensor (§10.1).
    """

    def __init__(
        self,
        *,
        tensors: Sequence[Tensor] | Mapping[int, Tensor],
        inputs: Sequence[Input],
        outputs: Sequence[int],
        ops: Iterable[tuple[str, Sequence[int], Sequence[int], Params]],
        scalars: Sequence[Scalar] = (),
        max_elems: int = MAX_ELEMS,
    ):
        items = tensors.items() if isinstance(tensors, Mapping) else enumerate(tensors)
        self.nx = nx.MultiDiGraph(
            inputs=tuple(inputs),
            outputs=tuple(outputs),
            scalars=tuple(scalars),
            max_elems=max_elems,
            order=[],
        )
        for t, rec in items:
            self.nx.add_node(t, rec=rec)
        for name, ins, outs, params in ops:
            self.append(name, ins, outs, params)

    # --- tables -------------------------------------------------------------------------
    @property
    def inputs(self) -> tuple[Input, ...]:
        return self.nx.graph["inputs"]

    @property
    def outputs(self) -> tuple[int, ...]:
        return self.nx.graph["outputs"]

    @property
    def scalars(self) -> tuple[Scalar, ...]:
        return self.nx.graph["scalars"]

    @property
    def max_elems(self) -> int:
        return self.nx.graph["max_elems"]

    @property
    def tensors(self) -> dict[int, Tensor]:
        """Tensor records by index, in index order."""
        return {t: self.nx.nodes[t]["rec"] for t in sorted(self._tensor_nodes())}

    def tensor(self, t: int) -> Tensor:
        return self.nx.nodes[t]["rec"]

    def _tensor_nodes(self) -> Iterator[int]:
        return (n for n in self.nx.nodes if not isinstance(n, tuple))

    # --- operators ----------------------------------------------------------------------
    @property
    def ops(self) -> list[Op]:
        """The operators in evaluation order (built once until the graph changes)."""
        cached = self.nx.graph.get("_ops")
        if cached is None:
            cached = [self._op(uid, k) for k, uid in enumerate(self.nx.graph["order"])]
            self.nx.graph["_ops"] = cached
        return list(cached)

    def _changed(self) -> None:
        """Forget what was derived from the operators: their list and their places."""
        self.nx.graph.pop("_ops", None)
        self.nx.graph.pop("_position", None)

    def op(self, uid: tuple) -> Op:
        return self._op(uid, self._position()[uid])

    def _position(self) -> dict:
        """Each operator node's place in evaluation order, kept until the order changes, so
        a lookup is O(1) and a load stays linear in the number of operators."""
        order = self.nx.graph["order"]
        cached = self.nx.graph.get("_position")
        if cached is None or cached[0] is not order or cached[1] != len(order):
            cached = (order, len(order), {uid: k for k, uid in enumerate(order)})
            self.nx.graph["_position"] = cached
        return cached[2]

    def _op(self, uid: tuple, index: int) -> Op:
        node = self.nx.nodes[uid]
        ins = sorted((k[1], t) for t, _, k in self.nx.in_edges(uid, keys=True))
        outs = sorted((k[1], t) for _, t, k in self.nx.out_edges(uid, keys=True))
        return Op(
            uid,
            index,
            node["name"],
            node["params"],
            tuple(t for _, t in ins),
            tuple(t for _, t in outs),
        )

    @contextmanager
    def journal(self) -> Iterator[Journal]:
        """Record what the block changes (operators appended or replaced, tensors added,
        parameters set): yields a :class:`Journal`, whose ``undo()`` puts the graph back and
        whose ``touched`` names the operator nodes to re-derive. A trial rewrite is applied
        in place and undone, instead of copying the whole graph per trial."""
        j = Journal(self)
        self.nx.graph["_journal"] = j
        try:
            yield j
        finally:
            self.nx.graph.pop("_journal", None)

    def _log(self, kind: str, *entry: object) -> None:
        j = self.nx.graph.get("_journal")
        if j is not None:
            j.entries.append((kind, *entry))

    def append(self, name: str, ins: Sequence[int], outs: Sequence[int], params: Params) -> tuple:
        """Add an operator after the last one; returns its node."""
        uid = ("op", len(self.nx.graph["order"]))
        while uid in self.nx:
            uid = ("op", uid[1] + 1)
        self.nx.add_node(uid, name=name, params=params)
        for slot, t in enumerate(ins):
            self.nx.add_edge(t, uid, key=("in", slot))
        for slot, t in enumerate(outs):
            self.nx.add_edge(uid, t, key=("out", slot))
        self.nx.graph["order"].append(uid)
        self._changed()
        self._log("append", uid)
        return uid

    def add_tensor(self, rec: Tensor) -> int:
        """Add a tensor record under a fresh index; returns the index."""
        t = max(self._tensor_nodes(), default=-1) + 1
        self.nx.add_node(t, rec=rec)
        self._log("tensor", t)
        return t

    def set_params(self, uid: tuple, params: Params) -> None:
        """Replace operator ``uid``'s parameters."""
        self._log("params", uid, self.nx.nodes[uid]["params"])
        self.nx.nodes[uid]["params"] = params
        self._changed()

    def replace(
        self, uid: tuple, ops: Sequence[tuple[str, Sequence[int], Sequence[int], Params]]
    ) -> list[tuple]:
        """Replace operator ``uid`` by ``ops`` (name, inputs, outputs, params), which take its
        place in evaluation order; returns their nodes."""
        order = self.nx.graph["order"]
        at = self._position()[uid]
        old = (
            dict(self.nx.nodes[uid]),
            list(self.nx.in_edges(uid, keys=True)),
            list(self.nx.out_edges(uid, keys=True)),
        )
        self.nx.remove_node(uid)
        del order[at]
        j = self.nx.graph.pop("_journal", None)  # the appends below are this one change
        try:
            new = [self.append(*op) for op in ops]
        finally:
            if j is not None:
                self.nx.graph["_journal"] = j
        order[len(order) - len(new) :] = []
        order[at:at] = new
        self._changed()
        self._log("replace", uid, at, old, new)
        return new

    def copy(self) -> "Graph":
        """An independent copy (parameters are immutable and shared)."""
        return Graph(
            tensors=self.tensors,
            inputs=self.inputs,
            outputs=self.outputs,
            ops=[(o.name, o.inputs, o.outputs, o.params) for o in self.ops],
            scalars=self.scalars,
            max_elems=self.max_elems,
        )

    def renumbered(self) -> "Graph":
        """The same graph with §13.0's tensor numbering: input ``i`` is tensor ``i``, then each
        operator's outputs in operator order; the tables follow."""
        ops = self.ops
        old = [i.tensor for i in self.inputs] + [t for o in ops for t in o.outputs]
        new = {t: k for k, t in enumerate(old)}
        return Graph(
            tensors=[self.tensor(t) for t in old],
            inputs=[replace(i, tensor=new[i.tensor]) for i in self.inputs],
            outputs=[new[t] for t in self.outputs],
            ops=[
                (o.name, [new[t] for t in o.inputs], [new[t] for t in o.outputs], o.params)
                for o in ops
            ],
            scalars=self.scalars,
            max_elems=self.max_elems,
        )

    def producer(self, t: int) -> tuple | None:
        """The operator node that writes tensor ``t``, or ``None`` for a graph input."""
        preds = list(self.nx.predecessors(t))
        return preds[0] if preds else None

    def consumers(self, t: int) -> list[tuple[tuple, int]]:
        """``(operator node, input slot)`` for every read of tensor ``t``, in graph order."""
        position = self._position()
        reads = [(uid, k[1]) for _, uid, k in self.nx.out_edges(t, keys=True)]
        return sorted(reads, key=lambda r: (position[r[0]], r[1]))

    def input_position(self, t: int) -> int | None:
        """The position of tensor ``t`` in the input table, or ``None``."""
        for i, inp in enumerate(self.inputs):
            if inp.tensor == t:
                return i
        return None

    @property
    def declares_sizes(self) -> bool:
        """Whether the inputs declare ``max_h`` and ``max_w`` (§10.2: all do, or none)."""
        return all(inp.max_h and inp.max_w for inp in self.inputs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        return (
            self.nx.graph["inputs"] == other.nx.graph["inputs"]
            and self.outputs == other.outputs
            and self.scalars == other.scalars
            and self.max_elems == other.max_elems
            and self.tensors == other.tensors
            and [_op_key(o) for o in self.ops] == [_op_key(o) for o in other.ops]
        )

    __hash__ = None  # type: ignore[assignment]   # mutable: equal graphs, no hash

    def __repr__(self) -> str:
        return (
            f"<Graph: {len(self.inputs)} inputs, {len(self.nx.graph['order'])} ops, "
            f"{sum(1 for _ in self._tensor_nodes())} tensors>"
        )


class Journal:
    """What a :meth:`Graph.journal` block changed, and how to put it back."""

    def __init__(self, g: Graph):
        self.g = g
        self.entries: list[tuple] = []

    @property
    def touched(self) -> set:
        """The operator nodes the block added or whose parameters it set."""
        out = set()
        for kind, *entry in self.entries:
            if kind in ("append", "params"):
                out.add(entry[0])
            elif kind == "replace":
                out.update(entry[3])
        return out

    @property
    def removed(self) -> set:
        """The operator nodes the block replaced."""
        return {entry[0] for kind, *entry in self.entries if kind == "replace"}

    def undo(self) -> None:
        """Put the graph back as it was before the block, last change first."""
        nx_graph, order = self.g.nx, self.g.nx.graph["order"]
        for kind, *entry in reversed(self.entries):
            if kind == "append":
                nx_graph.remove_node(entry[0])
                order.remove(entry[0])
            elif kind == "tensor":
                nx_graph.remove_node(entry[0])
            elif kind == "params":
                nx_graph.nodes[entry[0]]["params"] = entry[1]
            else:
                uid, at, (attrs, ins, outs), new = entry
                for n in new:
                    nx_graph.remove_node(n)
                    order.remove(n)
                nx_graph.add_node(uid, **attrs)
                for u, v, key in ins + outs:
                    nx_graph.add_edge(u, v, key=key)
                order.insert(at, uid)
        self.entries = []
        self.g._changed()


def _op_key(op: Op) -> tuple:
    return (op.name, op.params, op.inputs, op.outputs)
