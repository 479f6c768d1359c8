"""E7 ``band_lookup(v, e[0..m), table[rows][m+1], row)`` (§5E): count the edges ``v``
reaches, then look that band up in the table's row, elementwise."""

from __future__ import annotations

import numpy as np

from . import condition
from ._ints import ints

__all__ = ["band_lookup", "run"]


def band_lookup(v, edges: list[int], table: list[list[int]], row) -> np.ndarray:
    """``table[row][#{k : v ≥ e_k}]``; ``row`` an int or an array of ``v``'s shape (one row
    per element). Every row must hold ``m + 1`` entries and every ``row`` lie in
    ``[0, rows)`` (``model_mismatch``)."""
    m = len(edges)
    condition(len(table) >= 1, "the table has no row")
    condition(all(len(r) == m + 1 for r in table), f"a table row does not hold {m + 1} entries")
    v, rows = ints(v), np.asarray(row)
    condition(
        bool(((rows >= 0) & (rows < len(table))).all()), f"row {row} is not in [0, {len(table)})"
    )
    band = sum((v >= int(e)).astype(np.int64) for e in edges) + np.zeros(v.shape, np.int64)
    return ints(table)[rows, band]


def run(inp: dict, modes: dict) -> dict:
    return {"value": int(band_lookup([inp["v"]], inp["edges"], inp["table"], inp["row"])[0])}
