"""Exact 128-bit values in ONNX int64 arithmetic (§7.1: a ``wide`` or ``product`` interval
past 64 bits under ``acc64``), for onnxruntime, whose ``Add`` and ``Mul`` wrap silently
(§6 forbids depending on a wrap).

A wide value is five int64 limbs in base ``2^30``, lowest first: limbs 0–3 in
``[0, 2^30)``, limb 4 signed, so ``W = Σ l_i·2^(30 i)`` covers ``|W| < 2^127`` and more. No
operation here forms a value past ``2^62`` in magnitude: a product of two 30-bit limbs is
below ``2^60``, a column of at most three of them below ``2^62``, and every carry is taken by
a floor modulo. A value is narrowed back to int64 only where the certificate says it fits.
"""

from __future__ import annotations

import numpy as np

from .emit import I64, Emitter

__all__ = [
    "LIMBS",
    "BASE",
    "limbs_of",
    "from_i64",
    "from_const",
    "from_consts",
    "product",
    "times",
    "negate",
    "add",
    "add_small",
    "summed",
    "floor_shift",
    "floor_divide",
    "equal",
    "select",
    "low_bit",
    "narrow",
    "split_const",
]

LIMBS, BITS = 5, 30
BASE = 1 << BITS


def split_const(values) -> list[np.ndarray]:
    """Python integers (an array of any shape) as the five limbs of each, exactly."""
    flat = [int(v) for v in np.ravel(values)]
    out = []
    for k in range(LIMBS):
        limb = [(v >> (BITS * k)) & (BASE - 1) if k < LIMBS - 1 else v >> (BITS * k) for v in flat]
        out.append(np.array(limb, dtype=np.int64).reshape(np.shape(values)))
    return out


def _divmod(e: Emitter, x: str, d: int) -> tuple[str, str]:
    """``(⌊x / d⌋, x mod d)`` for a signed int64 ``x`` and ``d > 0``: the floor modulo, then
    an exact division."""
    r = e.node("Mod", [x, e.const(d, I64)], fmod=0)
    return e.node("Div", [e.node("Sub", [x, r]), e.const(d, I64)]), r


def _normalise(e: Emitter, cols: list[str]) -> list[str]:
    """Columns (each below ``2^62`` in magnitude) to limbs: each carry into the next."""
    out, carry = [], None
    for k, c in enumerate(cols):
        if carry is not None:
            c = e.node("Add", [c, carry])
        if k == len(cols) - 1:
            out.append(c)
        else:
            carry, low = _divmod(e, c, BASE)
            out.append(low)
    return out


def from_i64(e: Emitter, x: str) -> list[str]:
    """An int64 tensor as a wide value."""
    return _normalise(e, [x] + [e.const(0, I64)] * (LIMBS - 1))


def add(e: Emitter, a: list[str], b: list[str]) -> list[str]:
    """``A + B``."""
    return _normalise(e, [e.node("Add", [x, y]) for x, y in zip(a, b)])


def negate(e: Emitter, a: list[str]) -> list[str]:
    """``−A``."""
    return _normalise(e, [e.node("Neg", [x]) for x in a])


def from_consts(e: Emitter, values) -> list[str]:
    """Python integers (one, or an array broadcast against the tensors) as a wide value."""
    return [e.const(limb, I64, "limb") for limb in split_const(np.asarray(values, dtype=object))]


def from_const(e: Emitter, value: int) -> list[str]:
    """A Python integer as a wide value."""
    return from_consts(e, value)


def times(e: Emitter, w: list[str], c) -> list[str]:
    """``W·c`` for integers ``c`` that fit i64 (an array, broadcast), where the product is
    certified to fit a wide value: five limbs by three, columns of at most three products,
    the limbs past the fifth folded back into it (they are its sign extension)."""
    cl = _const_three(e, c)
    cols = []
    for k in range(LIMBS + 2):
        terms = [e.node("Mul", [w[i], cl[k - i]]) for i in range(LIMBS) if 0 <= k - i < 3]
        total = terms[0]
        for t in terms[1:]:
            total = e.node("Add", [total, t])
        cols.append(total)
    limbs = _normalise(e, cols)
    return limbs[: LIMBS - 1] + [narrow(e, limbs[LIMBS - 1 :])]


def _const_three(e: Emitter, c) -> list[str]:
    """Three limbs of constants that fit i64, as :func:`_three` splits a tensor."""
    parts = split_const(np.asarray(c, dtype=object))
    top = parts[2] + (parts[3] << BITS) + (parts[4] << (2 * BITS))
    return [
        e.const(parts[0], I64, "limb"),
        e.const(parts[1], I64, "limb"),
        e.const(top, I64, "limb"),
    ]


def summed(e: Emitter, w: list[str], total) -> list[str]:
    """A sum of wide values, ``total(limb)`` summing one limb over the terms (an int64
    ``MatMul`` by ones: exact, where ``ReduceSum`` goes through double); at most ``2^32``
    terms, so each limb's sum stays below ``2^62``."""
    return _normalise(e, [total(limb) for limb in w])


def limbs_of(e: Emitter, x) -> list[str]:
    """Three limbs of an int64 tensor (a name) or of per-channel constants (a list of
    Python integers, as ``[1, C, 1, 1]``, :meth:`~.emit.Emitter.per_channel`), for
    :func:`product`."""
    if isinstance(x, str):
        return _three(e, x)
    return _const_three(e, e.per_channel(np.array([int(v) for v in x], dtype=object)))


def _three(e: Emitter, x: str) -> list[str]:
    """``x = a0 + a1·2^30 + a2·2^60``, ``a0, a1`` in ``[0, 2^30)``, ``a2`` in ``[−8, 8)``."""
    a1, a0 = _divmod(e, x, BASE)
    a2, a1 = _divmod(e, a1, BASE)
    return [a0, a1, a2]


def product(e: Emitter, x, y) -> list[str]:
    """``x·y`` exactly, each an int64 tensor or per-channel constants (:func:`limbs_of`)."""
    a, b = limbs_of(e, x), limbs_of(e, y)

    def mul(i, j):
        return e.node("Mul", [a[i], b[j]])

    def add(*terms):
        total = terms[0]
        for t in terms[1:]:
            total = e.node("Add", [total, t])
        return total

    cols = [
        mul(0, 0),
        add(mul(0, 1), mul(1, 0)),
        add(mul(0, 2), mul(1, 1), mul(2, 0)),
        add(mul(1, 2), mul(2, 1)),
        mul(2, 2),
    ]
    return _normalise(e, cols)


def add_small(e: Emitter, w: list[str], k: int) -> list[str]:
    """``W + k`` for ``|k| < 2^30``."""
    return _normalise(e, [e.node("Add", [w[0], e.const(k, I64)])] + w[1:])


def floor_shift(e: Emitter, w: list[str], s: int) -> list[str]:
    """``⌊W / 2^s⌋`` for ``0 ≤ s < 150``: whole limbs dropped, then each limb's low ``r`` bits
    moved down into the limb below (every limb but the top is non-negative, and the top's
    floor division is the floor modulo's), then the limbs above refilled from the sign."""
    whole, r = divmod(s, BITS)
    limbs = w[whole:]
    if r:
        out = []
        for k, limb in enumerate(limbs):
            q, _ = _divmod(e, limb, 1 << r)
            if k + 1 < len(limbs):
                _, low = _divmod(e, limbs[k + 1], 1 << r)
                q = e.node("Add", [q, e.node("Mul", [low, e.const(1 << (BITS - r), I64)])])
            out.append(q)
        limbs = out
    return _normalise(e, limbs + [e.const(0, I64)] * (LIMBS - len(limbs)))


def floor_divide(e: Emitter, w: list[str], d: int) -> tuple[list[str], str]:
    """``(⌊W / d⌋, W mod d)`` for a constant ``1 ≤ d ≤ 2^31``: long division from the top
    limb (its floor modulo keeps every remainder in ``[0, d)``, so each step's dividend
    ``rem·2^30 + limb`` is below ``2^61``)."""
    out, rem = [], None
    for limb in reversed(w):
        cur = (
            limb if rem is None else e.node("Add", [e.node("Mul", [rem, e.const(BASE, I64)]), limb])
        )
        q, rem = _divmod(e, cur, d)
        out.append(q)
    out.reverse()
    return _normalise(e, out), rem


def select(e: Emitter, cond: str, a: list[str], b: list[str]) -> list[str]:
    """``cond ? A : B`` limb by limb."""
    return [e.node("Where", [cond, x, y]) for x, y in zip(a, b)]


def equal(e: Emitter, a: list[str], b: list[str]) -> str:
    """``A = B`` elementwise (both normalised)."""
    out = None
    for x, y in zip(a, b):
        same = e.node("Equal", [x, y])
        out = same if out is None else e.node("And", [out, same])
    return out


def low_bit(e: Emitter, w: list[str]) -> str:
    """``W mod 2`` (limb 0's parity)."""
    return e.node("Mod", [w[0], e.const(2, I64)], fmod=0)


def narrow(e: Emitter, w: list[str]) -> str:
    """``W`` as int64, where the certificate says it fits: Horner from the top limb, each
    partial value ``⌊W / 2^(30 k)⌋`` no larger than ``W``."""
    acc = w[-1]
    for limb in reversed(w[:-1]):
        acc = e.node("Add", [e.node("Mul", [acc, e.const(BASE, I64)]), limb])
    return acc
