"""What the case functions share: a vector is a graph, its decodes and the §14.1 items it
covers. A case function's name is its vector id."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from waiexport.builder import GraphBuilder
from waiexport.whg1 import write

__all__ = ["Case", "one", "seeded", "covers"]


@dataclass
class Case:
    """``graph`` is a built ``Graph`` or raw WHG1 bytes (for load refusals); ``decodes`` are
    ``(data inputs, scalars)`` of one sequence; ``items`` the §14.1/§14.2 items it covers."""

    graph: object
    decodes: list = field(default_factory=list)
    items: tuple = ()


def covers(*items: str):
    """Tag a case function with the items it covers (read by the coverage test)."""

    def tag(fn):
        fn.items = items
        return fn

    return tag


def seeded(name: str) -> np.random.Generator:
    """A generator seeded by the case's name, so every case is reproducible alone."""
    return np.random.default_rng(int.from_bytes(name.encode()[:8].ljust(8, b"\0"), "little"))


def one(
    name: str,
    params=None,
    *,
    channels: int = 2,
    lo: int = -100,
    hi: int = 100,
    size: tuple = (0, 0),
    n_in: int = 1,
    scalars=(),
    out_channels=None,
    raw=False,
    **op_kw,
):
    """A graph with exactly one operator ``name`` on ``n_in`` inputs of ``channels`` channels,
    ``check [lo, hi]``, declared sizes ``size``, and the given scalar ranges. ``raw`` gives
    the WHG1 bytes unchecked (for a graph its load refuses), with ``out_channels`` as the
    output records' channels."""
    b = GraphBuilder()
    for s_lo, s_hi in scalars:
        b.scalar(s_lo, s_hi)
    shapes = channels if isinstance(channels, (list, tuple)) else [channels] * n_in
    xs = [b.input(c, lo, hi, max_h=size[0], max_w=size[1]) for c in shapes]
    y = b.op(name, xs if len(xs) > 1 else xs[0], params, channels=out_channels, **op_kw)
    b.output(*(y if isinstance(y, tuple) else (y,)))
    return write(b.graph()) if raw else b.build()
