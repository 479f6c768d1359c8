"""The window walk of E8 ``mans_decode`` (§5E), compiled (numba): the table steps, escapes
and flushes of :mod:`.mans_decode`, over every span or row at once, at native speed (a
full-HD plane is about two million positions). The window's set-up, the tables and the
conditions stay in :mod:`.mans_decode`; the literal twin is the checker's
(``reference/literal/stage/mans_decode.py``).

Each walk returns ``(kind, at, x, y)``: ``kind`` 0 when every symbol was read, 1 for a read
of ``x`` bits with ``y`` left in the window, 2 for a flush of ``x`` bytes with ``y`` left,
``at`` the position the refusal is charged to (§14.1).
"""

from __future__ import annotations

import numpy as np

from ..kernels import announced
from numba import njit  # noqa: E402  (after kernels, which sets numba's cache folder)

__all__ = ["walk_sgm", "walk_fac"]

_READ, _FLUSH = 1, 2
#: No walk allocates (the caller hands in every array), so none needs numba's runtime, which
#: a process compiles when it first loads a kernel that does (15–20 ms, measured).
_compiled = njit(cache=True, _nrt=False)


@_compiled
def _le64(mem, i, b):  # pragma: no cover - compiled
    """The low ``b`` bits (``b`` ≤ 63) of the little-endian 64-bit word at ``mem[i]``."""
    v = np.uint64(0)
    for j in range(7, -1, -1):
        v = (v << np.uint64(8)) | np.uint64(mem[i + j])
    return np.int64(v & ((np.uint64(1) << np.uint64(b)) - np.uint64(1)))


@_compiled
def _flush(mem, st, fail, at):  # pragma: no cover - compiled
    """Move the window ``st = [p, h, b, s1, s2]`` down past the bytes read."""
    d = 7 ^ (st[2] >> 3)
    if d > st[0]:
        fail[0], fail[1], fail[2], fail[3] = _FLUSH, at, d, st[0]
        return False
    st[0] -= d
    st[2] = 56 + (st[2] & 7)
    st[1] = _le64(mem, st[0], st[2])
    return True


@_compiled
def _read(st, k, fail, at):  # pragma: no cover - compiled
    """The next ``k`` bits, or −1 with ``fail`` set."""
    if k > st[2]:
        fail[0], fail[1], fail[2], fail[3] = _READ, at, k, st[2]
        return -1
    st[2] -= k
    r = st[1] >> st[2]
    st[1] -= r << st[2]
    return r


@_compiled
def _step(st, which, t, fail, at):  # pragma: no cover - compiled
    """A table step of state ``which`` on entry ``t``."""
    r = _read(st, t >> 24, fail, at)
    if r < 0:
        return False
    st[3 + which] = ((t >> 16) | r) & 255
    return True


@_compiled
def _wrap16(v):  # pragma: no cover - compiled
    v &= 0xFFFF
    return v - 65536 if v >= 32768 else v


@_compiled
def _escape(mem, st, syms, k, beta, fail, at):  # pragma: no cover - compiled
    """``out(i)`` of ``sgm``: the escape where ``sym + β = 0``, then its flush."""
    if syms[k] + beta != 0:
        return True
    first = _read(st, 1, fail, at)
    if first < 0:
        return False
    v = _read(st, 3 if first == 1 else 16, fail, at)
    if v < 0:
        return False
    syms[k] = _wrap16((v >> 1) + beta) if v % 2 == 0 else _wrap16(-(v >> 1) - beta)
    return _flush(mem, st, fail, at)


@_compiled
def _walk_sgm(mem, st, tables, bounds, mask, sigma, lengths, syms, fail):  # pragma: no cover
    """Every span of ``sgm``: ``syms`` (flat, 0 where unmasked) from the window ``st``."""
    pos = 0
    for n in lengths:
        i = 0
        while i < n:
            g = 4 if n - i >= 4 else (2 if n - i >= 2 else 1)
            for j in range(i, i + g):
                k = pos + j
                if mask[k]:
                    t = tables[sigma[k], st[3 + j % 2]]
                    if not _step(st, j % 2, t, fail, k):
                        return
                    syms[k] = _wrap16(t)
                    if g != 4 and not _escape(mem, st, syms, k, bounds[sigma[k]], fail, k):
                        return
            if not _flush(mem, st, fail, pos + i + g - 1):
                return
            if g == 4:
                for j in range(i, i + 4):
                    k = pos + j
                    if mask[k] and not _escape(mem, st, syms, k, bounds[sigma[k]], fail, k):
                        return
            i += g
        pos += n


@_compiled
def _row_table(tz, counts, zp):  # pragma: no cover - compiled
    """Write one row's slots into ``T_z`` (*The row table*); other slots keep theirs."""
    lo = 0
    for a in range(63):
        hi = counts[a]
        for q in range(hi - lo):
            tz[lo + q] = (zp[hi - lo + q] << 16) + a
        lo = hi
    tz[255] = (zp[1] << 16) + 63


@_compiled
def _walk_fac(mem, st, rows, lengths, zp, tz, syms, fail):  # pragma: no cover - compiled
    """Every row of ``fac``: ``syms`` (flat) from the window ``st``, ``tz`` the row table
    (256 zeros)."""
    pos = last = 0
    for r in range(len(lengths)):
        n = lengths[r]
        _row_table(tz, rows[r], zp)
        i = 0
        while i < n:
            g = 4 if n - i >= 4 else (2 if n - i >= 2 else 1)
            for j in range(i, i + g):
                last = pos + j
                t = tz[st[3 + j % 2]]
                if not _step(st, j % 2, t, fail, last):
                    return
                syms[last] = t & 255
                if g != 4 and syms[last] == 63:
                    v = _read(st, 6, fail, last)
                    if v < 0:
                        return
                    syms[last] = v
            if g == 4:
                for j in range(i, i + 4):
                    if syms[pos + j] == 63:
                        v = _read(st, 6, fail, pos + j)
                        if v < 0:
                            return
                        syms[pos + j] = v
                if not _flush(mem, st, fail, last):
                    return
            i += g
        if not _flush(mem, st, fail, last):
            return
        pos += n


walk_sgm = announced(_walk_sgm, __file__)
walk_fac = announced(_walk_fac, __file__)
