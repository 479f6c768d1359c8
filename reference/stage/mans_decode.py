"""E8 ``mans_decode`` (§5E): a two-state masked table-ANS decode over a backward 64-bit bit
window, in ``sgm`` mode (latent spans with masks and per-position distributions) or ``fac``
mode (hyper-latent rows). The tables and operands are checked first (``model_mismatch`` at
−1); every later refusal is ``stream_exhausted``, at the position §14.1 gives it. The tables
are built with numpy; the decode is one sequential walk, as the window's state demands.
"""

from __future__ import annotations

import numpy as np

from waiexport.reference.integer import wrap16

from . import StageRefusal, condition

__all__ = ["Window", "latent_tables", "zp_table", "row_table", "check_sgm", "check_fac",
           "decode_sgm", "decode_fac", "zigzag", "run"]


class Window:
    """The window over ``M`` (8 zero bytes, then the stream): index ``p``, head ``h``, bit
    position ``b``, states ``s = [s1, s2]``; ``at`` is the position a refusal is charged to."""

    def __init__(self, stream: bytes):
        self.m, self.at = bytes(8) + bytes(stream), 0
        self.p = len(stream)
        self.h = self._le64(self.p)
        if self.h == 0:
            self._refuse("the last 8 bytes are zero: no sentinel bit")
        self.b = self.h.bit_length() - 1
        self.h -= 1 << self.b
        self.s = [self.read(8), self.read(8)]
        self.flush()

    def _le64(self, i: int) -> int:
        return int.from_bytes(self.m[i:i + 8], "little")

    def _refuse(self, why: str):
        raise StageRefusal("stream_exhausted", self.at, why)

    def read(self, k: int) -> int:
        """The next ``k`` bits."""
        if k > self.b:
            self._refuse(f"a read of {k} bits with {self.b} left in the window")
        self.b -= k
        r = self.h >> self.b
        self.h -= r << self.b
        return r

    def flush(self) -> None:
        """Move the window down past the bytes read."""
        d = 7 ^ (self.b >> 3)
        if d > self.p:
            self._refuse(f"a flush of {d} bytes with {self.p} left")
        self.p -= d
        self.b = 56 + (self.b & 7)
        self.h = self._le64(self.p) & ((1 << self.b) - 1)

    def step(self, which: int, t: int) -> None:
        """A table step of state ``which`` on entry ``t``: the new state."""
        self.s[which] = ((t >> 16) | self.read(t >> 24)) & 255


def zigzag(k: np.ndarray) -> np.ndarray:
    """``sym(k)``: ``k/2`` for even ``k``, ``−(k + 1)/2`` for odd."""
    return np.where(k % 2 == 0, k // 2, -(k + 1) // 2)


_BITS = np.array([v.bit_length() for v in range(512)], dtype=np.int64)


def _entries(nxt: np.ndarray, sym: np.ndarray) -> np.ndarray:
    """``nb·2^24 + base·2^16 + (sym mod 2^16)`` for each ``next`` in ``[1, 511]``: ``nb``
    doublings bring ``next`` to at least 256, and ``base = (next·2^nb) XOR 256``."""
    nb = np.maximum(0, 9 - _BITS[nxt])
    return (nb << 24) + (((nxt << nb) ^ 256) << 16) + (sym & 0xFFFF)


def latent_tables(pmf) -> np.ndarray:
    """``T_y`` ``[R, 256]`` from the rows ``P[σ]`` (*Building the latent tables*)."""
    rows = np.asarray(pmf, dtype=np.int64).reshape(len(pmf), -1)
    out = np.zeros((len(rows), 256), dtype=np.int64)
    u = np.arange(128)
    for sigma, p in enumerate(rows):
        c = np.concatenate([[0], np.cumsum(p)])
        f, g = c - c // 2, c // 2 + 128
        for starts, offset, slots in ((f, 0, u), (g, f[1:] - f[:-1], u + 128)):
            k = np.searchsorted(starts, slots, side="right") - 1
            off = offset[k] if isinstance(offset, np.ndarray) else 0
            out[sigma, slots] = _entries(p[k] + off + slots - starts[k], zigzag(k))
    return out


def zp_table() -> np.ndarray:
    """``Zp[i]`` for ``i`` in ``1..511`` (index 0 unused), *The preprocessing table*."""
    zp, nb = np.zeros(512, dtype=np.int64), 0
    for i in range(511, 0, -1):
        if i << nb < 256:
            nb += 1
        zp[i] = ((i << nb) ^ 256) + 256 * nb
    return zp


_ZP = zp_table()


def row_table(tz: np.ndarray, counts) -> None:
    """Write one row's slots into ``T_z`` (*The row table*); other slots keep theirs."""
    c = np.concatenate([[0], np.asarray(counts, dtype=np.int64)])
    for a in range(63):
        lo, hi = int(c[a]), int(c[a + 1])
        tz[lo:hi] = (_ZP[(hi - lo) + np.arange(hi - lo)] << 16) + a
    tz[255] = (_ZP[1] << 16) + 63


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def check_sgm(pmf, bounds, spans) -> None:
    """The ``sgm`` conditions: one width ``w ≥ 1``, non-negative rows summing to 256, bounds in
    ``[0, 255]``, and per span a mask and distributions of one length naming a row and a
    bound."""
    widths = {len(p) for p in pmf}
    condition(len(widths) <= 1 and 0 not in widths, "the pmf rows are not of one width ≥ 1")
    for sigma, p in enumerate(pmf):
        condition(all(_is_int(v) and v >= 0 for v in p) and sum(p) == 256,
                  f"pmf row {sigma} is not non-negative integers summing to 256")
    condition(all(_is_int(b) and 0 <= b <= 255 for b in bounds), "a bound is not in [0, 255]")
    names = min(len(pmf), len(bounds))
    for n, span in enumerate(spans):
        condition(len(span["mask"]) == len(span["sigma"]),
                  f"span {n}: the mask and the distributions differ in length")
        condition(all(_is_int(s) and 0 <= s < names for s in span["sigma"]),
                  f"span {n}: a distribution names no row and bound")


def check_fac(rows, lengths) -> None:
    """The ``fac`` conditions: rows of 63 non-decreasing counts in ``[0, 255]``, one length
    per row."""
    for n, c in enumerate(rows):
        condition(len(c) == 63 and all(_is_int(v) for v in c) and 0 <= c[0] and c[-1] <= 255
                  and all(a <= b for a, b in zip(c, c[1:])),
                  f"row {n} is not 63 non-decreasing counts in [0, 255]")
    condition(len(lengths) == len(rows) and all(_is_int(n) and n >= 0 for n in lengths),
              "there is not one length ≥ 0 for each row")


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


def decode_sgm(stream: bytes, pmf, bounds, spans) -> list[list[int]]:
    """The latent spans' symbols, 0 at every unmasked position."""
    check_sgm(pmf, bounds, spans)
    tables, win, pos = latent_tables(pmf).tolist() if pmf else [], Window(stream), 0
    out = []
    for span in spans:
        mask, sigma = span["mask"], span["sigma"]
        syms = [0] * len(mask)
        for group, four in _groups(len(mask)):
            for i in group:
                win.at = pos + i
                if mask[i]:
                    t = tables[sigma[i]][win.s[i % 2]]
                    win.step(i % 2, t)
                    syms[i] = wrap16(t & 0xFFFF)
                    if not four:
                        _escape(win, syms, i, bounds[sigma[i]])
            if four:
                win.at = pos + group[-1]
                win.flush()
                for i in group:
                    if mask[i]:
                        win.at = pos + i
                        _escape(win, syms, i, bounds[sigma[i]])
            else:
                win.at = pos + group[-1]
                win.flush()
        out.append(syms)
        pos += len(mask)
    return out


def _escape(win: Window, syms: list, i: int, beta: int) -> None:
    """``out(i)`` of ``sgm``: the escape where ``sym_i + β = 0``, then its flush."""
    if syms[i] + beta != 0:
        return
    v = win.read(3 if win.read(1) == 1 else 16)
    syms[i] = wrap16((v >> 1) + beta) if v % 2 == 0 else wrap16(-(v >> 1) - beta)
    win.flush()


def decode_fac(stream: bytes, rows, lengths) -> list[list[int]]:
    """The hyper-latent rows' symbols."""
    check_fac(rows, lengths)
    win, tz, pos, last = Window(stream), np.zeros(256, dtype=np.int64), 0, 0
    out = []
    for counts, n in zip(rows, lengths):
        row_table(tz, counts)
        table, syms = tz.tolist(), [0] * n
        for group, four in _groups(n):
            for i in group:
                win.at = last = pos + i
                t = table[win.s[i % 2]]
                win.step(i % 2, t)
                syms[i] = t & 255
                if not four and syms[i] == 63:
                    syms[i] = win.read(6)
            if four:
                for i in group:
                    win.at = pos + i
                    if syms[i] == 63:
                        syms[i] = win.read(6)
                win.at = last
                win.flush()
        win.at = last
        win.flush()
        out.append(syms)
        pos += n
    return out


def run(inp: dict, modes: dict) -> dict:
    stream = bytes.fromhex(inp["memory"])
    mode = inp["mode"]
    condition(mode in ("sgm", "fac"), f"mode {mode!r} is neither sgm nor fac")
    if mode == "sgm":
        return {"symbols": decode_sgm(stream, inp["pmf"], inp["bounds"], inp["spans"])}
    return {"symbols": decode_fac(stream, inp["rows"], inp["lengths"])}
