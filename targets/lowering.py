"""What every format's exporter does with a graph's operators: each through its lowering in
graph order, a failure named by the node, each output through its tensor's policy."""

from __future__ import annotations

from typing import Protocol, TypeVar

from waiexport.graph import Op

from .errors import ExportError

__all__ = ["lower_ops", "Lowering", "Names"]

#: The model's names of an operator's input or output tensors, in its slots' order.
Names = list[str]
B = TypeVar("B", contravariant=True)
C = TypeVar("C", contravariant=True)


class Lowering(Protocol[B, C]):
    """The hook every format's ``lower/<name>.py`` defines: ``lower(builder, op, ins, ctx) →
    outputs``, ``builder`` the format's model under construction, ``ctx`` what its lowerings
    read (certified intervals, shapes, scalars' inputs)."""

    def __call__(self, builder: B, op: Op, ins: Names, ctx: C, /) -> Names: ...


def lower_ops(
    g,
    table: dict,
    builder,
    ctx,
    names: dict,
    *,
    label,
    clamp,
    fmt: str,
    store=lambda t, x: x,
    before=lambda op: None,
    checks: list | None = None,
    bounds=None,
) -> dict:
    """Lower every operator of ``g`` with ``table[name](builder, op, inputs, ctx)``, the
    names of its inputs taken from (and its outputs added to) ``names``; ``clamp(x, rec)``
    applies a ``clamp`` policy, ``store(t, x)`` keeps the result for tensor ``t``. A ``check``
    policy inside the graph, an operator without a lowering, or a lowering's own refusal
    raises :class:`ExportError` naming the node by ``label(index)``; given a ``checks`` list,
    a ``check`` tensor is clamped to its range instead (so nothing downstream sees a value
    outside its certified interval) and ``(tensor, unclamped)`` is appended, for the host to
    check after the run (§4 step 4). Given ``bounds``, the bounds pass over ``g``, a
    ``clamp`` whose producer result is certified inside its range changes no value and is
    left out."""
    inside = (
        set()
        if bounds is None
        else {
            t
            for n in bounds.nodes
            for t, (lo, hi) in zip(n.op.outputs, n.result.results)
            if g.tensor(t).policy == "clamp" and g.tensor(t).lo <= lo and hi <= g.tensor(t).hi
        }
    )
    for op in g.ops:
        before(op)
        if op.name not in table:
            raise ExportError(f"{label(op.index)} ({op.name}): no {fmt} lowering")
        try:
            outs = table[op.name](builder, op, [names[t] for t in op.inputs], ctx)
        except ExportError as e:
            raise type(e)(f"{label(op.index)} ({op.name}): {e}") from None
        for t, out in zip(op.outputs, outs):
            rec = g.tensor(t)
            if rec.policy == "check" and checks is not None:
                checks.append((t, out))
                out = clamp(out, rec)
            elif rec.policy == "check":
                raise ExportError(
                    f"{label(op.index)} ({op.name}): a check policy inside "
                    "the graph needs a refusal no accelerator can make (§9.2)"
                )
            names[t] = store(
                t, clamp(out, rec) if rec.policy == "clamp" and t not in inside else out
            )
    return names
