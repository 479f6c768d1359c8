"""A small builder for ONNX graphs of integer tensors: fresh names, typed constants, nodes."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..errors import ExportError

__all__ = [
    "Emitter",
    "I32",
    "I64",
    "U8",
    "I8",
    "BOOL",
    "fits_i8",
    "channel_const",
    "graphs",
    "reads",
    "subgraph_nodes",
]

I32, I64, U8, BOOL = TensorProto.INT32, TensorProto.INT64, TensorProto.UINT8, TensorProto.BOOL
I8 = TensorProto.INT8
_NP = {
    I32: np.int32,
    I64: np.int64,
    U8: np.uint8,
    I8: np.int8,
    BOOL: np.bool_,
    TensorProto.INT16: np.int16,
}


def _branches(node) -> list:
    """The subgraphs ``node`` holds (an ``If``'s two branches; none for most nodes)."""
    return [a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH]


def subgraph_nodes(nodes):
    """Each node of ``nodes`` and, after it, every node of its subgraphs (an ``If``'s
    branches), depth first."""
    for n in nodes:
        yield n
        for g in _branches(n):
            yield from subgraph_nodes(g.node)


def graphs(graph):
    """``graph`` and each of its subgraphs (an ``If``'s branches), depth first."""
    yield graph
    for n in graph.node:
        for g in _branches(n):
            yield from graphs(g)


def reads(node) -> set[str]:
    """The tensors ``node`` reads: its inputs, and those its subgraphs read from outside
    them."""
    got = {i for i in node.input if i}
    for g in _branches(node):
        made = {o for n in subgraph_nodes(g.node) for o in n.output}
        got |= {i for n in g.node for i in reads(n)} - made
    return got


def fits_i8(iv: tuple[int, int]) -> bool:
    """Whether every value of the interval ``iv`` is an int8."""
    return -128 <= iv[0] and iv[1] <= 127


def channel_const(e: Emitter, values, hint: str, dtype: int = I64) -> str:
    """Per-channel values as a ``[1, C, 1, 1]`` constant (``[1, 1, 1, C]`` for an NHWC twin,
    :meth:`Emitter.per_channel`; a scalar when all agree)."""
    values = [int(v) for v in np.ravel(values)]
    if len(set(values)) == 1:
        return e.const(values[0], dtype, hint)
    return e.const(e.per_channel(values), dtype, hint)


class Emitter:
    """Collects the nodes and initializers of one model; every tensor it names is 4-D
    ``[1, C, H, W]`` unless said otherwise."""

    def __init__(self):
        self.nodes: list = []
        self.inits: list = []
        self.scope = "model"  # the node names' prefix: ``op<index>`` of the operator lowered
        self.storage = I32  # every graph tensor's type: int32 (acc32), int64 (acc64)
        self.target = None  # the target description whose runtime will run the model
        self.nhwc: dict = {}  # a tensor's twin ``[1, H, W, C]``, where a lowering made one:
        # the same values moved, for a consumer that reads NHWC
        self.channel_axis = 1  # where per-channel constants broadcast (3 for an NHWC twin)
        self.scaled: dict = {}  # a sum left times 2^t per channel (a list of t) for its
        # requantisation to take into its shifts (:func:`.requant.room`)
        self._n = 0
        self._consts: dict = {}
        self._widened: dict = {}  # a widening cast's output: (its input, that input's type)

    def exact(self, op: str, dtype: int) -> bool:
        """Whether the target's runtime computes ONNX ``op`` on ``dtype`` exactly in integers
        (its description's ``inexact`` and ``lacks``, measured by the probes); a lowering
        that has another form takes it where this is false."""
        return (
            self.target is None or self.target.options.cannot(op, np.dtype(_NP[dtype]).name) is None
        )

    def per_channel(self, values) -> np.ndarray:
        """One value per channel, shaped to broadcast on :attr:`channel_axis`."""
        return np.asarray(values).reshape([-1 if a == self.channel_axis else 1 for a in range(4)])

    @contextmanager
    def channels_last(self):
        """Per-channel constants broadcast on the last axis meanwhile: for an NHWC twin."""
        self.channel_axis = 3
        try:
            yield self
        finally:
            self.channel_axis = 1

    def pruned(self, outputs: list[str]) -> None:
        """Drop every node and initializer that no node leading to ``outputs`` reads (a
        tensor whose twin every consumer took, and what only it needed)."""
        needed, kept = set(outputs), []
        for n in reversed(self.nodes):
            if any(o in needed for o in n.output):
                kept.append(n)
                needed.update(reads(n))
        self.nodes = kept[::-1]
        self.inits = [t for t in self.inits if t.name in needed]

    @contextmanager
    def branch(self):
        """The nodes added meanwhile go to the list this yields, not the model's: the body
        of a subgraph (an ``If`` branch, :meth:`when`), which reads the model's tensors by
        name."""
        outer, self.nodes = self.nodes, []
        try:
            yield self.nodes
        finally:
            self.nodes = outer

    def when(self, cond: str, then: tuple, orelse: tuple, dtype: int) -> str:
        """``If(cond)``: each branch ``(nodes, output)`` from :meth:`branch`, its one output
        (made by one of its nodes) of type ``dtype``; the name of the result."""

        def body(label: str, nodes: list, out: str):
            return helper.make_graph(
                nodes, label, [], [helper.make_tensor_value_info(out, dtype, None)]
            )

        return self.node(
            "If", [cond], then_branch=body("then", *then), else_branch=body("else", *orelse)
        )

    def name(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def const(self, values, dtype: int, hint: str = "c") -> str:
        """An initializer holding ``values`` as ``dtype``; equal constants are shared. Values
        that do not fit ``dtype`` raise :class:`~..errors.ExportError`, which the export
        reports named by its node (nothing is wrapped: the check is on the values as Python
        integers, where numpy would read ``2^63`` as a ``uint64`` and a list holding it as
        floats)."""
        arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
        if arr.size:
            ints = arr if arr.dtype.kind in "iub" else np.vectorize(int, otypes=[object])(arr)
            kind = None if dtype == BOOL else np.iinfo(_NP[dtype])
            lo, hi = (0, 1) if kind is None else (kind.min, kind.max)
            if (
                int(ints.min()) < lo
                or int(ints.max()) > hi
                or (ints is not arr and (ints != arr).any())
            ):
                raise ExportError(f"a constant does not fit {TensorProto.DataType.Name(dtype)}")
        cast = arr.astype(_NP[dtype])
        key = (dtype, cast.shape, cast.tobytes())
        if key not in self._consts:
            name = self.name(hint)
            self.inits.append(numpy_helper.from_array(cast, name))
            self._consts[key] = name
        return self._consts[key]

    def node(self, op: str, inputs: list[str], n_out: int = 1, hint: str | None = None, **attrs):
        """Add one node; returns its output name (or names when ``n_out > 1``)."""
        outs = [self.name(hint or op.lower()) for _ in range(n_out)]
        self.nodes.append(
            helper.make_node(op, inputs, outs, name=f"{self.scope}/{outs[0]}", **attrs)
        )
        return outs[0] if n_out == 1 else outs

    def spread_scalars(self) -> None:
        """Each ``Mul`` and ``Div`` that reads a one-element constant beside a computed
        operand reads it spread to that operand's shape instead (``Expand`` by its
        ``Shape``): the same values, for a runtime whose optimiser takes minutes on a
        one-element operand after a sum of GEMMs and folds the spread one at once (tract's
        description, ``spread_scalars``)."""
        single = {t.name for t in self.inits if int(np.prod(t.dims)) == 1}
        constant = {t.name for t in self.inits}
        nodes = []
        for n in self.nodes:
            at = {"Mul": (1, 0), "Div": (1,)}.get(n.op_type, ())
            k = next(
                (k for k in at if n.input[k] in single and n.input[1 - k] not in constant), None
            )
            if k is not None:
                scope = n.name.rsplit("/", 1)[0]
                shape, spread = self.name("shape"), self.name("spread")
                nodes += [
                    helper.make_node("Shape", [n.input[1 - k]], [shape], name=f"{scope}/{shape}"),
                    helper.make_node(
                        "Expand", [n.input[k], shape], [spread], name=f"{scope}/{spread}"
                    ),
                ]
                n.input[k] = spread
            nodes.append(n)
        self.nodes = nodes

    def cast(self, x: str, dtype: int) -> str:
        """``x`` as ``dtype``: where ``x`` widened (:meth:`widen`) a ``dtype`` tensor, that
        tensor, with no cast."""
        narrow = self._widened.get(x)
        if narrow is not None and narrow[1] == dtype:
            return narrow[0]
        return self.node("Cast", [x], to=dtype)

    def widen(self, x: str, have: int, want: int) -> str:
        """``x``, of type ``have``, cast to ``want``, a type that holds every ``have`` value,
        so a cast of the result back to ``have`` is ``x`` itself (an int8 move between int32
        tensors, then an int8 GEMM operand: no cast there and back)."""
        out = self.cast(x, want)
        self._widened[out] = (x, have)
        return out

    def dims(self, x: str) -> str:
        """The runtime shape of ``x`` (int64, 1-D)."""
        return self.node("Shape", [x])

    def dim(self, x: str, axis: int) -> str:
        """One runtime dimension of ``x`` as a 1-element int64 tensor."""
        return self.node(
            "Slice", [self.dims(x), self.const([axis], I64), self.const([axis + 1], I64)]
        )

    def slice(self, x: str, starts, ends, axes, steps=None, index=I64) -> str:
        """``Slice`` with constant (or, given names, runtime) bounds, its indices of type
        ``index`` (int64, or int32 where runtime bounds are int32)."""

        def arg(v):
            return v if isinstance(v, str) else self.const(list(v), index)

        ins = [x, arg(starts), arg(ends), self.const(list(axes), index)]
        if steps is not None:
            ins.append(self.const(list(steps), index))
        return self.node("Slice", ins)

    def reshape(self, x: str, dims: list) -> str:
        """``Reshape`` to ``dims``, each an int or the name of a 1-element int64 tensor."""
        parts = [d if isinstance(d, str) else self.const([d], I64) for d in dims]
        return self.node("Reshape", [x, self.node("Concat", parts, axis=0)])

    def hw(self, x: str) -> tuple[str, str]:
        """The runtime height and width of a ``[1, C, H, W]`` tensor."""
        return self.dim(x, 2), self.dim(x, 3)

    def times(self, d: str, k: int) -> str:
        return self.node("Mul", [d, self.const([k], I64)])

    def over(self, d: str, k: int) -> str:
        return self.node("Div", [d, self.const([k], I64)])
