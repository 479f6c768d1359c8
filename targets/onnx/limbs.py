"""Exact values past 32 bits in ONNX int32 arithmetic, for a runtime that computes no int64
exactly (OpenVINO narrows it to int32) and no int32 division either (through float32).
Under ``acc32`` the only values past i32 are the ``product`` intermediates, each of two
int32 operands (§7.1, §7.2), and a rounding shift of one ends in i32: so a requantisation
forms its product from limbs, rounds and shifts them, and narrows the certified result.

A value is a list of limbs, lowest first, in base ``2^15``: ``V = Σ l_k·2^(15k)``, each an
int32 tensor whose interval is known here, so a carry is taken only where a sum could pass
int32, and a division reads only the bits a limb's interval can set. A normalised value has
every limb but the top in ``[0, 2^15)``. A product of two such limbs is below ``2^30``; every
node's interval is checked against int32 as it is formed (an :class:`~..errors.ExportError`,
never a wrap, §6). A division by ``2^k`` is by bits (:func:`bit_floor_shift`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ExportError
from .emit import I32, Emitter, channel_const

__all__ = ["Limb", "bit_floor_shift", "split", "constants", "product", "rounded"]

BITS = 15
BASE = 1 << BITS
LO, HI = -(1 << 31), (1 << 31) - 1


def bit_floor_shift(e: Emitter, p: str, shifts: list[int], span=None) -> str:
    """``⌊p / 2^s⌋`` of an int32 ``p`` for per-channel shifts ``s ∈ 0..31`` from
    ``BitwiseAnd``, ``Min``, ``Max`` and ``Add`` alone, for a runtime that computes int32
    ``Div``, ``Mod`` and ``BitShift`` through float (OpenVINO, measured): in two's
    complement ``p = −2^31·b₃₁ + Σ b_j·2^j``, and dropping the bits below ``s`` is the floor,
    so ``⌊p / 2^s⌋ = −b₃₁·2^(31−s) + Σ_{j ≥ s} b_j·2^(j−s)``; each term is
    ``min(p AND 2^j, 2^(j−s))`` (the bit's ``2^j`` or 0, capped at its weight), the sign's
    ``max(p AND −2^31, −2^(31−s))``. Where ``p``'s interval ``span`` puts it in
    ``[−2^w, 2^w)``, the bits from ``w`` up copy the sign, so only the bits below ``w`` are
    read and the sign weighs ``2^(w−s)``. Every partial sum is the quotient of a number that
    drops some bits of ``p``, so it fits; a channel of shift 0 keeps ``p``."""
    if not any(shifts):
        return p
    lo, hi = span if span is not None else (LO, HI)
    width = max(-lo - 1, hi, 0).bit_length()  # p in [−2^width, 2^width): bits past it copy the sign
    total = None
    for j in range(min(s for s in shifts if s), width):
        caps = [0 if not s or j < s else 1 << (j - s) for s in shifts]
        term = e.node(
            "Min",
            [e.node("BitwiseAnd", [p, e.const(1 << j, I32)]), channel_const(e, caps, "bits", I32)],
        )
        total = term if total is None else e.node("Add", [total, term])
    if lo < 0:
        caps = [-(1 << max(width - s, 0)) if s else 0 for s in shifts]
        term = e.node(
            "Max",
            [e.node("BitwiseAnd", [p, e.const(LO, I32)]), channel_const(e, caps, "bits", I32)],
        )
        total = term if total is None else e.node("Add", [total, term])
    if total is None:
        total = e.node("Mul", [p, e.const(0, I32)])
    if 0 in shifts:
        keep = channel_const(e, [int(not s) for s in shifts], "bits", I32)
        total = e.node("Add", [total, e.node("Mul", [p, keep])])
    return total


@dataclass(frozen=True)
class Limb:
    """One limb: its tensor (``None`` for a limb that is 0 everywhere) and its interval."""

    name: str | None
    lo: int
    hi: int


ZERO = Limb(None, 0, 0)


def _checked(e: Emitter, op: str, a: Limb, b: Limb, lo: int, hi: int) -> Limb:
    """The node ``op(a, b)``, whose every value lies in ``[lo, hi]``, which must fit int32."""
    if lo < LO or hi > HI:
        raise ExportError(f"an int32 limb of [{lo}, {hi}] would wrap (an exporter fault)")
    return Limb(e.node(op, [a.name, b.name]), lo, hi)


def _add(e: Emitter, a: Limb, b: Limb) -> Limb:
    if a.name is None:
        return b
    if b.name is None:
        return a
    return _checked(e, "Add", a, b, a.lo + b.lo, a.hi + b.hi)


def _mul(e: Emitter, a: Limb, b: Limb) -> Limb:
    if a.name is None or b.name is None:
        return ZERO
    corners = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return _checked(e, "Mul", a, b, min(corners), max(corners))


def _const(e: Emitter, values: list[int]) -> Limb:
    """Per-channel integers (within int32) as a limb; 0 everywhere is :data:`ZERO`."""
    if not any(values):
        return ZERO
    return Limb(channel_const(e, values, "limb", I32), min(values), max(values))


def _low(e: Emitter, x: Limb, k: int) -> Limb:
    """``x mod 2^k``."""
    if x.name is None or (0 <= x.lo and x.hi < 1 << k):
        return x
    return Limb(e.node("BitwiseAnd", [x.name, e.const((1 << k) - 1, I32)]), 0, (1 << k) - 1)


def _floor(e: Emitter, x: Limb, k: int) -> Limb:
    """``⌊x / 2^k⌋`` for any ``k ≥ 0`` (past 31, the sign of an int32), by bits."""
    lo, hi = x.lo >> k, x.hi >> k
    if x.name is None or lo == hi == 0:
        return ZERO
    if k == 0:
        return x
    return Limb(bit_floor_shift(e, x.name, [min(k, 31)], (x.lo, x.hi)), lo, hi)


def _split(e: Emitter, x: Limb) -> tuple[Limb, Limb]:
    """``(x mod 2^15, ⌊x / 2^15⌋)``."""
    return _low(e, x, BITS), _floor(e, x, BITS)


def normalised(e: Emitter, columns: list[list[Limb]]) -> list[Limb]:
    """Columns of terms (column ``k`` weighs ``2^(15k)``) as a normalised value: each column
    summed, a carry taken first wherever the next term could pass int32, each column's carry
    added to the next; the top keeps the sign, within ``[−2^15, 2^15)`` so that a product of
    two limbs is at most ``2^30``."""
    cols = [list(c) for c in columns]
    out: list[Limb] = []
    k = 0
    while k < len(cols):
        total = ZERO
        for term in cols[k]:
            if total.lo + term.lo < LO or total.hi + term.hi > HI:
                total, carry = _split(e, total)
                _carry(cols, k, carry)
            total = _add(e, total, term)
        if k == len(cols) - 1 and -BASE <= total.lo and total.hi < BASE:
            out.append(total)
            break
        low, carry = _split(e, total)
        out.append(low)
        _carry(cols, k, carry)
        k += 1
    return out


def _carry(cols: list[list[Limb]], k: int, carry: Limb) -> None:
    if carry.name is None:
        return
    if k + 1 == len(cols):
        cols.append([])
    cols[k + 1].append(carry)


def split(e: Emitter, x: str, span=None) -> list[Limb]:
    """An int32 tensor (its values within ``span``, or any int32) as a normalised value."""
    lo, hi = span if span is not None else (LO, HI)
    return normalised(e, [[Limb(x, max(lo, LO), min(hi, HI))]])


def constants(e: Emitter, values: list[int]) -> list[Limb]:
    """Per-channel integers as a normalised value: as many limbs as the largest needs, the
    top in ``[−2^15, 2^15)``."""
    values = [int(v) for v in values]
    n = 1
    while any(not -BASE <= v >> (BITS * (n - 1)) < BASE for v in values):
        n += 1
    return [
        _const(
            e, [v >> (BITS * k) if k == n - 1 else (v >> (BITS * k)) & (BASE - 1) for v in values]
        )
        for k in range(n)
    ]


def product(e: Emitter, a: list[Limb], b: list[Limb] | None, plus: int = 0) -> list[Limb]:
    """``A·B + plus`` normalised (``A + plus`` where ``b`` is None; ``plus`` a power of two
    or 0: a rounding's half)."""
    if b is None:
        cols = [[x] for x in a]
    else:
        cols = [[] for _ in range(len(a) + len(b) - 1)]
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                term = _mul(e, x, y)
                if term.name is not None:
                    cols[i + j].append(term)
    if plus:
        k, r = divmod(plus.bit_length() - 1, BITS)
        cols += [[] for _ in range(k + 1 - len(cols))]
        cols[k].append(_const(e, [1 << r]))
    return normalised(e, cols)


def _shifted(e: Emitter, v: list[Limb], s: int) -> list[Limb]:
    """``⌊V / 2^s⌋`` of a normalised ``V``, normalised: whole limbs dropped (they are
    non-negative and below the cut), each limb's low ``r`` bits moved into the limb below."""
    whole, r = divmod(s, BITS)
    if whole >= len(v):
        return [_floor(e, v[-1], s - BITS * (len(v) - 1))]
    v = v[whole:]
    out = []
    for k, limb in enumerate(v):
        q = _floor(e, limb, r)
        if r and k + 1 < len(v):
            moved = _mul(e, _low(e, v[k + 1], r), _const(e, [1 << (BITS - r)]))
            q = _add(e, q, moved)
        out.append(q)
    return out


def _narrow(e: Emitter, v: list[Limb], like: str) -> str:
    """``V`` as one int32 tensor shaped as ``like``, where the certificate fits it in i32:
    Horner from the top limb, each partial value ``⌊V / 2^(15k)⌋`` no larger than ``V``."""
    acc = None
    for limb in reversed(v):
        if acc is not None:
            acc = e.node("Mul", [acc, e.const(BASE, I32)])
        if limb.name is not None:
            acc = limb.name if acc is None else e.node("Add", [acc, limb.name])
    return acc if acc is not None else e.node("Mul", [like, e.const(0, I32)])


def _bit(e: Emitter, v: list[Limb], j: int) -> Limb:
    """Bit ``j`` of a normalised ``V`` (two's complement in the top limb), 0 or 1."""
    k, r = divmod(j, BITS)
    if k >= len(v):
        k, r = len(v) - 1, min(j - BITS * (len(v) - 1), 31)
    return _low(e, _floor(e, v[k], r), 1)


def _any_below(e: Emitter, v: list[Limb], j: int) -> Limb:
    """1 where a bit below ``j`` of a normalised ``V`` is set, else 0: the limbs below bit
    ``j``'s (non-negative) and the low bits of its own; past the top limb, which lies in
    ``[−2^15, 2^15)``, its low 16 bits are 0 only where it is."""
    k, r = divmod(j, BITS)
    if k >= len(v):
        k, r = len(v) - 1, min(j - BITS * (len(v) - 1), BITS + 1)
    parts = [*v[:k], _low(e, v[k], r)] if r else v[:k]
    total = ZERO
    for part in parts:
        if part.name is not None:
            total = _add(e, total, _min1(e, part))
    return _min1(e, total)


def _min1(e: Emitter, x: Limb) -> Limb:
    """``min(x, 1)`` of a non-negative limb."""
    if x.name is None or x.hi <= 1:
        return x
    return Limb(e.node("Min", [x.name, e.const(1, I32)]), 0, 1)


def rounded(e: Emitter, a: list[Limb], b, s: int, mode: str, like: str) -> str:
    """``R_mode(A·B, s)`` (§5.1; ``R_mode(A, s)`` where ``b`` is None) as one int32 tensor
    shaped as ``like`` (the certified ``rq.q`` fits i32): ``half_up`` adds the half before
    the floor shift; ``half_even`` floors, then adds 1 where the bit below the cut is set and
    a lower bit is set or the quotient is odd."""
    if mode == "half_up" and s:
        return _narrow(e, _shifted(e, product(e, a, b, 1 << (s - 1)), s), like)
    p = product(e, a, b)
    q = _shifted(e, p, s)
    out = _narrow(e, q, like)
    if mode == "floor" or not s:
        return out
    sticky = _add(e, _any_below(e, p, s - 1), _low(e, q[0], 1))
    up = _mul(e, _bit(e, p, s - 1), _min1(e, sticky))
    return out if up.name is None else e.node("Add", [out, up.name])
