"""E3 ``bucket(σ, e, rule)`` (§5E): a scale to a table index by comparisons only, ``ceil``
or ``floor``, on an array of ``σ``."""

from __future__ import annotations

import numpy as np

from . import condition
from ._ints import ints

__all__ = ["bucket", "run"]


def bucket(sigma, edges: list[int], rule: str) -> np.ndarray:
    """``ceil``: ``(N − 1) − #{i < N − 1 : max(σ, e_0) ≤ e_i}`` for ``N ≥ 1`` edges ``e_0…``;
    ``floor``: ``#{i : e_i ≤ σ}`` for ``N − 1 ≥ 1`` non-decreasing edges ``e_1…``."""
    condition(rule in ("ceil", "floor"), f"bucket rule {rule!r} is neither ceil nor floor")
    sigma, e = ints(sigma), [int(x) for x in edges]
    if rule == "ceil":
        condition(len(e) >= 1, "a ceil bucket takes at least one edge")
        low = np.maximum(sigma, e[0])
        return (
            len(e)
            - 1
            - sum((low <= x).astype(np.int64) for x in e[:-1])
            + np.zeros(sigma.shape, np.int64)
        )
    condition(len(e) >= 1, "a floor bucket takes at least one edge")
    condition(all(a <= b for a, b in zip(e, e[1:])), "floor bucket edges decrease")
    return sum((sigma >= x).astype(np.int64) for x in e) + np.zeros(sigma.shape, np.int64)


def run(inp: dict, modes: dict) -> dict:
    return {
        "index": int(
            bucket(np.array([inp["sigma"]], dtype=object), inp["edges"], modes.get("bucket"))[0]
        )
    }
