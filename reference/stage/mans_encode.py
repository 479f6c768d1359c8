"""An encoder for E8 ``mans`` (test support and the vector generator's; not part of the spec):
from symbols, masks and tables to a stream that :mod:`.mans_decode` reads back to the same
symbols, in both modes.

Each state (``s1``, ``s2``) is a table-ANS chain. Walking a chain backwards from an arbitrary
final state, each symbol's column and the state after it fix the ``nb`` bits its table step
reads and the slot it starts from (every column's slots take each ``next`` of
``[P, 2P − 1]`` once); the first slot of each chain is what ``init`` reads. The bits are then
laid out in decode order behind a sentinel bit, from the last byte of the stream down.
"""

from __future__ import annotations

import numpy as np

__all__ = ["encode_sgm", "encode_fac", "coding", "EncodeError"]


def _groups(n: int):
    """The steps of a span or row of ``n`` positions: ``(positions, flush after)``."""
    i = 0
    while i + 4 <= n:
        yield range(i, i + 4), True
        i += 4
    if n - i >= 2:
        yield range(i, i + 2), False
        i += 2
    if n - i == 1:
        yield range(i, i + 1), False


class EncodeError(ValueError):
    """A symbol the given tables cannot code."""


def _step_bits(x: int, p: int) -> tuple[int, int, int]:
    """For a column of ``p`` slots and the state after ``x ∈ [256, 512)``: ``(nb, bits,
    next)`` with ``next·2^nb + bits = x`` and ``next ∈ [p, 2p − 1]``."""
    nb = 0
    while x >> nb >= 2 * p:
        nb += 1
    return nb, x & ((1 << nb) - 1), x >> nb


class _Plan:
    """The steps in decode order: each a table step ``(chain, column size, slot of next)``
    or raw bits ``(value, count)``."""

    def __init__(self):
        self.steps = []

    def table(self, chain: int, p: int, slot_of) -> None:
        self.steps.append(["table", chain, p, slot_of, None])

    def bits(self, value: int, count: int) -> None:
        self.steps.append(["bits", value, count])

    def stream(self) -> bytes:
        state = [0, 0]
        for step in reversed(self.steps):
            if step[0] == "table":
                _, chain, p, slot_of, _ = step
                nb, bits, nxt = _step_bits(state[chain] + 256, p)
                step[4] = (bits, nb)
                state[chain] = slot_of(nxt)
        out = [f"{state[0]:08b}", f"{state[1]:08b}"]
        for step in self.steps:
            value, count = step[4] if step[0] == "table" else step[1:]
            out.append(format(value, "b").zfill(count) if count else "")
        bits = "1" + "".join(out)
        bits += "0" * (-len(bits) % 8)
        return bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8))[::-1]


def _latent_slots(pmf):
    """Per row and column: ``(P, next → slot)``, from the layout the decoder builds."""
    out = []
    for p in pmf:
        c = np.concatenate([[0], np.cumsum(p)])
        f, g = c - c // 2, c // 2 + 128
        cols = {}
        for k, pk in enumerate(p):
            if pk:
                n_f = int(f[k + 1] - f[k])
                cols[k] = (
                    int(pk),
                    lambda nxt, pk=int(pk), n_f=n_f, fk=int(f[k]), gk=int(g[k]): (
                        fk + nxt - pk if nxt - pk < n_f else gk + nxt - pk - n_f
                    ),
                )
        out.append(cols)
    return out


def _column(value: int) -> int:
    """The column whose symbol is ``value`` (the inverse of the zigzag)."""
    return 2 * value if value >= 0 else -2 * value - 1


def coding(p: list[int], beta: int) -> tuple[list[int], bool]:
    """What a row ``p`` with bound ``beta`` codes: its direct symbols (every column with mass
    but the escape's, ``−β``), and whether it has the escape, which codes every ``y`` with
    ``y ≥ β`` or ``y ≤ −β`` whose escape value fits 16 bits."""
    direct = [k // 2 if k % 2 == 0 else -(k + 1) // 2 for k, m in enumerate(p) if m]
    esc = _column(-beta)
    return [y for y in direct if y != -beta], esc < len(p) and bool(p[esc])


def _latent(plan: _Plan, cols: dict, chain: int, y: int, beta: int) -> list | None:
    """Plan symbol ``y``'s table step; the escape's bits when it takes one, else None."""
    k = _column(y)
    if y + beta != 0 and k in cols:
        plan.table(chain, *cols[k])
        return None
    esc = _column(-beta)
    if esc not in cols:
        raise EncodeError(f"{y} is not in the table and the escape column {esc} is empty")
    plan.table(chain, *cols[esc])
    if y >= beta:
        v = 2 * (y - beta)
    elif y <= -beta:
        v = 2 * (-beta - y) + 1
    else:
        raise EncodeError(f"{y} lies strictly between ±{beta} and is not in the table")
    if v >= 1 << 16:
        raise EncodeError(f"{y} is past the escape's 16 bits")
    return [(1, 1), (v, 3)] if v < 8 else [(0, 1), (v, 16)]


def encode_sgm(pmf, bounds, spans) -> bytes:
    """A stream for ``spans``: each ``{"mask", "sigma", "symbols"}``, the symbols of masked
    positions (unmasked ones read nothing)."""
    cols, plan = _latent_slots(pmf), _Plan()
    for span in spans:
        mask, sigma, syms = span["mask"], span["sigma"], span["symbols"]
        for group, four in _groups(len(mask)):
            later = []
            for i in group:
                if mask[i]:
                    esc = _latent(plan, cols[sigma[i]], i % 2, syms[i], bounds[sigma[i]])
                    if four:
                        later.append(esc)
                    elif esc:
                        for value, count in esc:
                            plan.bits(value, count)
            for esc in later:
                for value, count in esc or []:
                    plan.bits(value, count)
    return plan.stream()


def encode_fac(rows, symbols) -> bytes:
    """A stream for the rows ``rows`` (63 counts each) with ``symbols[n]`` in row ``n``,
    each in ``[0, 63]``."""
    plan = _Plan()
    for counts, syms in zip(rows, symbols):
        c = [0, *counts]
        for group, four in _groups(len(syms)):
            escapes = []
            for i in group:
                a = syms[i]
                if not 0 <= a <= 63:
                    raise EncodeError(f"hyper-latent symbol {a} is not in [0, 63]")
                k = c[a + 1] - c[a] if a < 63 else 0
                if k:
                    plan.table(i % 2, k, lambda nxt, lo=c[a], k=k: lo + nxt - k)
                else:
                    plan.table(i % 2, 1, lambda nxt: 255)
                    if not four:
                        plan.bits(a, 6)
                escapes.append(None if k else a)
            for a in escapes if four else []:
                if a is not None:
                    plan.bits(a, 6)
    return plan.stream()
