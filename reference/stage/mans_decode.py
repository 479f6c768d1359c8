"""E8 ``mans_decode`` (§5E): a two-state masked table-ANS decode over a backward 64-bit bit
window, in ``sgm`` mode (latent spans with masks and per-position distributions) or ``fac``
mode (hyper-latent rows). The tables and operands are checked first (``model_mismatch`` at
−1); every later refusal is ``stream_exhausted``, at the position §14.1 gives it. The tables
are built with numpy; the decode is one sequential walk, as the window's state demands,
compiled (:mod:`.mans_walk`) after the window's set-up here.
"""

from __future__ import annotations

import numpy as np

from . import StageRefusal, condition
from .mans_walk import walk_fac, walk_sgm

__all__ = [
    "Window",
    "latent_tables",
    "zp_table",
    "check_sgm",
    "check_fac",
    "decode_sgm",
    "decode_fac",
    "sgm_symbols",
    "zigzag",
    "run",
]


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
        return int.from_bytes(self.m[i : i + 8], "little")

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

    def walk(self, kernel, *args) -> None:
        """Run a compiled walk (:mod:`.mans_walk`) from this window's state; its refusal is
        this window's."""
        st = np.array([self.p, self.h, self.b, *self.s], dtype=np.int64)
        fail = np.zeros(4, dtype=np.int64)
        kernel(np.frombuffer(self.m, np.uint8), st, *args, fail)
        kind, self.at, x, y = (int(v) for v in fail)
        if kind == 1:
            self._refuse(f"a read of {x} bits with {y} left in the window")
        if kind == 2:
            self._refuse(f"a flush of {x} bytes with {y} left")


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


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def check_sgm(pmf, bounds, spans) -> None:
    """The ``sgm`` conditions: one width ``w ≥ 1``, non-negative rows summing to 256, bounds in
    ``[0, 255]``, and per span a mask and distributions of one length naming a row and a
    bound."""
    widths = {len(p) for p in pmf}
    condition(len(widths) <= 1 and 0 not in widths, "the pmf rows are not of one width ≥ 1")
    for sigma, p in enumerate(pmf):
        condition(
            all(_is_int(v) and v >= 0 for v in p) and sum(p) == 256,
            f"pmf row {sigma} is not non-negative integers summing to 256",
        )
    condition(all(_is_int(b) and 0 <= b <= 255 for b in bounds), "a bound is not in [0, 255]")
    names = min(len(pmf), len(bounds))
    for n, span in enumerate(spans):
        condition(
            len(span["mask"]) == len(span["sigma"]),
            f"span {n}: the mask and the distributions differ in length",
        )
        condition(
            all(_is_int(s) and 0 <= s < names for s in span["sigma"]),
            f"span {n}: a distribution names no row and bound",
        )


def check_fac(rows, lengths) -> None:
    """The ``fac`` conditions: rows of 63 non-decreasing counts in ``[0, 255]``, one length
    per row; rows given as one integer array of 63 columns are checked in one pass."""
    if (
        isinstance(rows, np.ndarray)
        and rows.dtype.kind in "iu"
        and rows.ndim == 2
        and rows.shape[1] == 63
    ):
        bad = np.flatnonzero(
            (rows[:, 0] < 0) | (rows[:, -1] > 255) | (np.diff(rows, axis=1) < 0).any(axis=1)
        )
        condition(
            not bad.size,
            f"row {bad[0] if bad.size else 0} is not 63 non-decreasing counts in [0, 255]",
        )
    else:
        for n, c in enumerate(rows):
            condition(
                len(c) == 63
                and all(_is_int(v) for v in c)
                and 0 <= c[0]
                and c[-1] <= 255
                and all(a <= b for a, b in zip(c, c[1:])),
                f"row {n} is not 63 non-decreasing counts in [0, 255]",
            )
    condition(
        len(lengths) == len(rows) and all(_is_int(n) and n >= 0 for n in lengths),
        "there is not one length ≥ 0 for each row",
    )


def decode_sgm(stream: bytes, pmf, bounds, spans) -> list[list[int]]:
    """The latent spans' symbols, 0 at every unmasked position."""
    check_sgm(pmf, bounds, spans)
    lengths = [len(span["mask"]) for span in spans]
    flat = sgm_symbols(
        stream,
        pmf,
        bounds,
        np.array([bool(m) for span in spans for m in span["mask"]], dtype=bool),
        np.array([s for span in spans for s in span["sigma"]], dtype=np.int64),
        lengths,
        checked=True,
    )
    return [row.tolist() for row in np.split(flat, np.cumsum(lengths)[:-1])] if spans else []


def sgm_symbols(
    stream: bytes, pmf, bounds, mask: np.ndarray, sigma: np.ndarray, lengths, checked: bool = False
) -> np.ndarray:
    """:func:`decode_sgm` on whole planes: the spans' masks and distributions end to end in
    ``mask`` and ``sigma``, the span lengths in ``lengths``; the symbols, flat, as int64."""
    if not checked:
        check_sgm(pmf, bounds, [])
        names = min(len(pmf), len(bounds))
        condition(
            len(mask) == len(sigma) == sum(lengths),
            "the masks and the distributions differ in length",
        )
        condition(
            not len(sigma) or 0 <= int(sigma.min()) and int(sigma.max()) < names,
            "a distribution names no row and bound",
        )
    tables = latent_tables(pmf) if pmf else np.zeros((0, 256), np.int64)
    syms = np.zeros(len(mask), dtype=np.int64)
    Window(stream).walk(
        walk_sgm,
        tables,
        np.asarray(bounds, np.int64),
        mask,
        sigma,
        np.asarray(lengths, np.int64),
        syms,
    )
    return syms


def decode_fac(stream: bytes, rows, lengths) -> list[list[int]]:
    """The hyper-latent rows' symbols."""
    check_fac(rows, lengths)
    syms = np.zeros(sum(lengths), dtype=np.int64)
    Window(stream).walk(
        walk_fac,
        np.asarray(rows, np.int64).reshape(len(rows), 63),
        np.asarray(lengths, np.int64),
        _ZP,
        np.zeros(256, np.int64),
        syms,
    )
    return [row.tolist() for row in np.split(syms, np.cumsum(lengths)[:-1])] if len(rows) else []


def run(inp: dict, modes: dict) -> dict:
    stream = bytes.fromhex(inp["memory"])
    mode = inp["mode"]
    condition(mode in ("sgm", "fac"), f"mode {mode!r} is neither sgm nor fac")
    if mode == "sgm":
        return {"symbols": decode_sgm(stream, inp["pmf"], inp["bounds"], inp["spans"])}
    return {"symbols": decode_fac(stream, inp["rows"], inp["lengths"])}
