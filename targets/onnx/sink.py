"""Concatenations moved below the per-channel steps that follow them: a ``Concat`` of the
groups' or phases' sums (:func:`.mac.common.joined`) is read by the requantisation, a clamp and a
narrowing ``Cast``, each a pass over the whole int32 tensor; run on each part before the
join, every step reads a part still in cache from its GEMM, and the join copies the narrow
result (the transposed stack 0.92× the time, interleaved). Each step is elementwise with
constants that are one value or one a channel of the joined axis, so on a part it computes
exactly what it computed on that part's channels of the whole."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .emit import graphs, reads

__all__ = ["sunk"]

_ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Clip", "Cast", "Relu", "Neg", "Abs"}
_EITHER_SIDE = {"Add", "Mul", "Max", "Min"}


def sunk(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with each ``Concat`` whose sizes on its axis are known moved below the
    elementwise steps that alone read it (and ``Reshape``s that keep its axis last), in
    every graph and ``If`` branch; what reads the last step's output is unchanged."""
    if not any(n.op_type == "Concat" for g in graphs(model.graph) for n in g.node):
        return model
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    shapes = {
        v.name: [
            d.dim_value if d.HasField("dim_value") else None for d in v.type.tensor_type.shape.dim
        ]
        for g in graphs(inferred.graph)
        for v in [*g.value_info, *g.input, *g.output]
        if v.type.HasField("tensor_type")
    }
    consts = _Constants(model.graph.initializer)
    for g in graphs(model.graph):
        _sink(g, shapes, consts, model.graph.initializer)
    read = {t for g in graphs(model.graph) for n in g.node for t in n.input}
    unread = [t for t in model.graph.initializer if t.name not in read]
    for t in unread:  # a per-channel constant now read in slices only
        model.graph.initializer.remove(t)
    return model


class _Constants(dict):
    """The model's initializers by name, each an array from the first time a step reads it
    (the weights, which no step reads, are never copied)."""

    def __init__(self, inits):
        super().__init__()
        self._protos = {t.name: t for t in inits}

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or name in self._protos

    def __missing__(self, name: str) -> np.ndarray:
        self[name] = numpy_helper.to_array(self._protos[name])
        return self[name]


def _sink(g, shapes: dict, consts: dict, inits) -> None:
    outputs, seen, moved = {o.name for o in g.output}, set(), False
    while True:  # the maps of who reads and makes what, again after each move
        readers, made = defaultdict(list), {o: n for n in g.node for o in n.output}
        for n in g.node:
            for t in reads(n):
                readers[t].append(n)
        for concat in g.node:
            if concat.op_type != "Concat" or concat.output[0] in seen:
                continue
            seen.add(concat.output[0])
            chain = _chain(concat, readers, outputs, shapes, consts)
            if chain is not None:
                source = _source(concat, chain, made, readers, shapes, consts)
                if source is not None:
                    _from_source(g, concat, chain, *source)
                else:
                    _rewrite(g, concat, *chain, consts, inits)
                moved = True
                break
        else:
            break
    if moved:
        _in_order(g)


def _chain(concat, readers, outputs, shapes, consts):
    """The steps below ``concat`` that may run on its parts, the parts' sizes on its axis,
    the axis, and the ``Shape`` nodes that read a tensor of the chain (whose shape the last
    step's output shares); ``None`` where there is no elementwise step."""
    rank = len(shapes.get(concat.output[0]) or [])
    if not rank:
        return None
    axis = first = _axis(concat, rank)
    sizes = [(shapes.get(p) or [None] * rank)[axis] for p in concat.input]
    if None in sizes:
        return None
    total, steps, t, shaped = sum(sizes), [], concat.output[0], False
    while t not in outputs:
        shaped |= any(u.op_type == "Shape" for u in readers[t])
        rest = [u for u in readers[t] if u.op_type != "Shape"]
        if len(rest) != 1:
            break
        n = rest[0]
        if n.op_type == "Reshape":
            after = shapes.get(n.output[0]) or []
            if shaped or n.input[0] != t or axis != rank - 1 or not after or after[-1] != total:
                break
            rank, axis = len(after), len(after) - 1
        elif not _elementwise(n, t, axis, rank, total, consts):
            break
        steps.append(n)
        t = n.output[0]
    while steps and steps[-1].op_type == "Reshape":
        steps.pop()
    if not steps:
        return None
    tensors = [concat.output[0], *(n.output[0] for n in steps)]
    return steps, sizes, first, [u for t in tensors for u in readers[t] if u.op_type == "Shape"]


def _axis(concat, rank: int) -> int:
    axis = next(a.i for a in concat.attribute if a.name == "axis")
    return axis + rank if axis < 0 else axis


def _elementwise(n, t: str, axis: int, rank: int, total: int, consts: dict) -> bool:
    """Whether ``n`` is an elementwise step on ``t`` whose other operands are constants of
    one value, or, on a last ``axis``, of one value a channel."""
    if n.op_type not in _ELEMENTWISE:
        return False
    others = (
        [x for x in n.input[1:] if x]
        if n.input[0] == t
        else ([n.input[0]] if n.op_type in _EITHER_SIDE and n.input[1:] == [t] else None)
    )
    if others is None or t in others or not all(x in consts for x in others):
        return False
    for x in others:
        k = consts[x]
        if k.ndim > rank or (
            k.size != 1 and not (axis == rank - 1 and k.shape[-1] == total and k.size == total)
        ):
            return False
    return True


def _source(concat, chain, made, readers, shapes, consts):
    """Where every part of ``concat`` is a ``Slice`` (read by it alone) of one tensor whose
    last axis, the join's, the parts' channels tile in order, and no step reshapes: that
    tensor and the slices, so the steps run on it whole, then the slices (the shared
    window's shifted groups, :func:`.mac.nhwc._shared_window`). It holds positions no part
    keeps; a step there must not trap whatever the value (a ``Div`` by 0 or −1 would)."""
    steps, sizes, axis, _ = chain
    slices = [made.get(p) for p in concat.input]
    if any(
        n is None or n.op_type != "Slice" or len(readers[n.output[0]]) != 1 for n in slices
    ) or any(n.op_type == "Reshape" for n in steps):
        return None
    x = slices[0].input[0]
    rank = len(shapes.get(x) or [])
    if (
        rank != len(shapes[concat.output[0]])
        or axis != rank - 1
        or (shapes[x][-1] or -1) != sum(sizes)
        or any(n.input[0] != x or not all(a in consts for a in n.input[1:]) for n in slices)
    ):
        return None
    edges = np.cumsum([0, *sizes])
    for i, n in enumerate(slices):
        starts, ends, axes = (consts[a].tolist() for a in n.input[1:4])
        steps_of = consts[n.input[4]].tolist() if len(n.input) > 4 and n.input[4] else []
        axes = [a + rank if a < 0 else a for a in axes]
        if (
            any(v != 1 for v in steps_of)
            or rank - 1 not in axes
            or starts[axes.index(rank - 1)] != edges[i]
            or min(ends[axes.index(rank - 1)], edges[-1]) != edges[i + 1]
        ):
            return None
    if any(n.op_type == "Div" and np.isin(consts[n.input[1]], (0, -1)).any() for n in steps):
        return None
    return x, slices


def _from_source(g, concat, chain, x: str, slices: list) -> None:
    """The steps on the parts' source ``x``, then each part's ``Slice`` of the result,
    joined; the last step's output keeps its name."""
    steps, _, axis, shape_readers = chain
    inside = {concat.output[0], *(n.output[0] for n in steps)}
    new, t = [], x
    for n in steps:
        new.append(_again(n, [t if name in inside else name for name in n.input], "whole"))
        t = new[-1].output[0]
    ends = [_again(n, [t, *n.input[1:]], "after") for n in slices]
    new += [
        *ends,
        helper.make_node(
            "Concat",
            [n.output[0] for n in ends],
            [steps[-1].output[0]],
            name=concat.name,
            axis=axis,
        ),
    ]
    _swap(g, [concat, *steps, *slices], new, shape_readers)


def _rewrite(g, concat, steps, sizes, axis, shape_readers, consts, inits) -> None:
    """Each part of ``concat`` through the elementwise ``steps``, then the join and the
    ``Reshape`` steps, the last one's output keeping its name."""
    chain = {concat.output[0], *(n.output[0] for n in steps)}
    edges = np.cumsum([0, *sizes])
    ends, new = [], []
    for i, part in enumerate(concat.input):
        x = part
        for n in (s for s in steps if s.op_type != "Reshape"):
            new.append(
                _again(
                    n,
                    [
                        x
                        if name in chain
                        else _sliced(name, edges[i], edges[i + 1], consts, inits)
                        if name
                        else ""
                        for name in n.input
                    ],
                    f"part{i}",
                )
            )
            x = new[-1].output[0]
        ends.append(x)
    reshapes = [n for n in steps if n.op_type == "Reshape"]
    joined = steps[-1].output[0] if not reshapes else f"{concat.output[0]}_sunk"
    new.append(helper.make_node("Concat", ends, [joined], name=concat.name, axis=axis))
    for k, n in enumerate(reshapes):
        out = steps[-1].output[0] if k == len(reshapes) - 1 else f"{n.output[0]}_sunk"
        new.append(helper.make_node("Reshape", [joined, n.input[1]], [out], name=n.name))
        joined = out
    _swap(g, [concat, *steps], new, shape_readers)


def _again(n, inputs: list, suffix: str):
    """``n`` on ``inputs``: its output and its name (so a node keeps its operator's scope,
    ``op<index>/``, which ``--locate`` reads; none where ``n`` has none) with ``suffix``."""
    return helper.make_node(
        n.op_type,
        inputs,
        [f"{n.output[0]}_{suffix}"],
        name=f"{n.name}_{suffix}" if n.name else "",
        **{a.name: helper.get_attribute_value(a) for a in n.attribute},
    )


def _swap(g, old: list, new: list, shape_readers: list) -> None:
    """``g`` with the nodes ``new`` in place of ``old``, whose last one's output the last
    of ``new`` makes, and the ``Shape`` nodes that read the chain reading that output."""
    for u in shape_readers:
        u.input[0] = new[-1].output[0]
    gone = {n.output[0] for n in old}
    _replace(g, [n for n in g.node if n.output[0] not in gone] + new)


def _sliced(name: str, lo: int, hi: int, consts: dict, inits) -> str:
    """Constant ``name`` for channels ``lo:hi`` of a part: itself where it is one value,
    else its slice as a 1-D constant (the channels on the last axis)."""
    k = consts[name]
    if k.size == 1 and k.ndim == 0:
        return name
    part = k.reshape(()) if k.size == 1 else k.reshape(-1)[lo:hi]
    label = f"{name}_{lo}_{hi}" if k.size != 1 else f"{name}_one"
    if label not in consts:
        consts[label] = part
        inits.append(numpy_helper.from_array(np.ascontiguousarray(part), label))
    return label


def _in_order(g) -> None:
    """``g``'s nodes in an order where each runs after what it reads, the rest keeping
    their places."""
    made = {o: n for n in g.node for o in n.output}
    done, order = set(), []
    for root in list(g.node):
        stack = [(root, False)]
        while stack:
            n, ready = stack.pop()
            if ready:
                order.append(n)
                continue
            if n.output[0] in done:
                continue
            done.add(n.output[0])
            stack.append((n, True))
            stack += [
                (made[t], False)
                for t in sorted(reads(n), reverse=True)
                if t in made and made[t].output[0] not in done
            ]
    _replace(g, order)


def _replace(g, nodes: list) -> None:
    """``g``'s nodes made ``nodes`` (copied first: they may be ``g``'s own)."""
    copies = []
    for n in nodes:
        copies.append(onnx.NodeProto())
        copies[-1].CopyFrom(n)
    del g.node[:]
    g.node.extend(copies)
