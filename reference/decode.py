"""A decode through a graph (§4 run steps 1–4), and a sequence of decodes with state (§10.3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Sequence

import numpy as np

from waiexport.graph import Graph, Tensor
from waiexport.plan import check_inputs, run_plan
from waiexport.refusal import Refusal

from .arrays import compact, rround, wide
from .ops import REFERENCE, OpCtx

__all__ = ["decode", "apply_policy", "Decoder"]


def apply_policy(value: np.ndarray, rec: Tensor, where: str) -> np.ndarray:
    """§3: a ``clamp`` tensor is clamped; a ``check`` tensor outside its range refuses the
    decode (``field_range``); a ``derived`` one is as produced."""
    if rec.policy == "clamp":
        return compact(np.minimum(np.maximum(value, rec.lo), rec.hi))
    if rec.policy == "check" and value.size:
        lo, hi = int(value.min()), int(value.max())
        if lo < rec.lo or hi > rec.hi:
            bad = lo if lo < rec.lo else hi
            raise Refusal("field_range", where, f"{bad} is outside [{rec.lo}, {rec.hi}]")
    return value


def decode(
    g: Graph,
    inputs: Sequence[np.ndarray],
    scalars: Sequence[int],
    *,
    literal: bool = False,
    keep: bool = False,
    note=None,
    rounding=None,
) -> list[np.ndarray] | dict:
    """Run one decode (§4 run steps 1–4).

    Parameters
    ----------
    g : Graph
        A graph that loaded.
    inputs : sequence of arrays
        Every input, state inputs included, in input-table order, each ``[C, H, W]``.
    scalars : sequence of int
        Every scalar's value, in scalar-table order.
    literal : bool
        Run the literal implementation (scalar loops on Python integers) instead of the
        vectorised one.
    note : callable, optional
        With ``literal``, ``note(index, key, value)`` hears every named intermediate (§5)
        that operator ``index`` forms, as it forms it.
    keep : bool
        Return every tensor (a dict by tensor index) instead of the outputs.
    rounding : callable, optional
        ``rounding(real, p, s, mode)`` in place of every rounding ``R_mode(p, s)`` (§2) the
        vectorised operators make, ``real`` being the reference's own: a test double's
        mistake, or a spy.

    Returns
    -------
    list of arrays
        The graph's outputs, in output-table order, each after its policy.

    Raises
    ------
    Refusal
        The first refusal of §4's run steps.
    """
    run_plan(g, [a.shape for a in inputs], [int(s) for s in scalars])
    if literal:
        from .literal import LITERAL  # the checker's twin, a module per operator: where it runs
    ops, store = (LITERAL, wide) if literal else (REFERENCE, compact)
    hooks = (
        {} if rounding is None else {"rounding": lambda p, s, mode: rounding(rround, p, s, mode)}
    )
    env = {}
    for i, (inp, value) in enumerate(zip(g.inputs, inputs)):
        env[inp.tensor] = store(apply_policy(compact(value), g.tensor(inp.tensor), f"input {i}"))
    ctx_scalars = tuple(int(s) for s in scalars)
    for op in g.ops:
        recs = [g.tensor(t) for t in op.outputs]
        ctx = OpCtx(ctx_scalars, tuple(r.channels for r in recs), **hooks)
        if note is not None:
            ctx = OpCtx(ctx.scalars, ctx.out_channels, partial(note, op.index))
        outs = ops[op.name](op.params, [env[t] for t in op.inputs], ctx)
        for slot, (t, rec, value) in enumerate(zip(op.outputs, recs, outs)):
            where = f"operator {op.index} ({op.name}) output {slot}"
            env[t] = store(apply_policy(compact(value), rec, where))
    return env if keep else [env[t] for t in g.outputs]


@dataclass
class Decoder:
    """A sequence of decodes through one graph, carrying state (§10.3).

    Until a decode completes, each state input is ``init`` over input 0's ``H × W``; after,
    it is what output ``src`` held at the end of the last completed decode. A refused decode
    changes no state.
    """

    graph: Graph
    engine: object = decode
    state: dict = field(default_factory=dict)

    def inputs(self, data: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every input in table order: the data inputs given, the state inputs carried. §4 run
        step 1 runs first on every input's shape, so a state is never allocated at a size the
        spec refuses (``Refusal``)."""
        data = list(data)
        _, h, w = data[0].shape
        given = iter(data)
        check_inputs(
            self.graph,
            [
                tuple(np.shape(next(given)))
                if i.kind == "data"
                else tuple(np.shape(self.state[k]))
                if k in self.state
                else (self.graph.tensor(i.tensor).channels, h, w)
                for k, i in enumerate(self.graph.inputs)
            ],
        )
        out = []
        for i, inp in enumerate(self.graph.inputs):
            if inp.kind == "data":
                out.append(data.pop(0))
            else:
                c = self.graph.tensor(inp.tensor).channels
                out.append(self.state.get(i, np.full((c, h, w), inp.init, dtype=np.int64)))
        return out

    def step(self, data: Sequence[np.ndarray], scalars: Sequence[int]) -> list[np.ndarray]:
        """One decode of the sequence; raises ``Refusal`` and keeps the state when refused."""
        outputs = self.engine(self.graph, self.inputs(data), scalars)
        for i, inp in enumerate(self.graph.inputs):
            if inp.kind == "state":
                self.state[i] = outputs[inp.src]
        return outputs
