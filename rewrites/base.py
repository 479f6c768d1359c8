"""What every rewrite is: pattern, precondition, replacement, reason (STYLE.md)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from waiexport.builder import smallest_width
from waiexport.graph import Graph, Op
from waiexport.optable import info
from waiexport.params import RQ, as_array

__all__ = ["Rewrite", "rq_channels", "with_rq", "set_rq"]


class Rewrite:
    """A graph rewrite: ``check`` says why it declines (``None`` when it applies), ``apply``
    changes the graph in place. ``ops`` are the operators it looks at; ``needed`` whether a
    target asks for it."""

    name = ""  # in words, for people
    key = ""  # its module's name, for machines
    ops: tuple = ()

    def needed(self, op: Op, target) -> bool:
        raise NotImplementedError

    def check(self, op: Op, g: Graph, target) -> str | None:
        raise NotImplementedError

    def apply(self, op: Op, g: Graph, target) -> None:
        raise NotImplementedError


def rq_channels(op: Op, g: Graph) -> int:
    """How many output channels ``op``'s ``RQ`` spans."""
    return op.params.cout if info(op.name).rq == "cout" else g.tensor(op.inputs[0]).channels


def _kind(values: list[int], was: int) -> tuple[int, np.ndarray]:
    """The narrowest kind that holds ``values``: one value when all agree and the source gave
    one, one per channel otherwise."""
    if was != 2 and len(set(values)) == 1:
        return 1, as_array(values[:1])
    return 2, as_array(values)


def with_rq(
    rq: RQ,
    *,
    mult: list[int] | None = None,
    shift: list[int] | None = None,
    bias: list[int] | None = None,
    bias_kind: str | None = None,
    round: str | None = None,
) -> RQ:
    """``rq`` with per-channel multipliers, shifts or biases replaced; kinds and widths follow
    the values (the smallest width that holds them, §13.0)."""
    changes: dict = {}
    if mult is not None and not (rq.m_kind == 0 and set(mult) == {1}):
        m_kind, arr = _kind(mult, rq.m_kind)
        changes |= dict(
            m_kind=m_kind, mult=arr, m_bytes=max(rq.m_bytes, smallest_width(arr, (4, 8)))
        )
    if shift is not None:
        s_kind, arr = _kind(shift, rq.s_kind)
        changes |= dict(s_kind=s_kind, shift=arr)
    if bias is not None:
        arr = as_array(bias)
        changes |= dict(
            bias=arr,
            b_bytes=max(rq.b_bytes, smallest_width(arr, (4, 8))),
            bias_kind=bias_kind or rq.bias_kind,
        )
    if round is not None:
        changes["round"] = round
    return replace(rq, **changes)


def set_rq(g: Graph, op: Op, rq: RQ, **params) -> None:
    """Give operator ``op`` the block ``rq`` (and any other parameters named)."""
    g.set_params(op.uid, replace(op.params, rq=rq, **params))
