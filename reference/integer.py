"""The integer functions of §2, on Python integers: exact for every argument, no width.

These are the literal definitions; :mod:`waiexport.reference.arrays` has the vectorised forms.
"""

from math import isqrt as _isqrt

__all__ = [
    "r_floor",
    "r_half_up",
    "r_half_even",
    "r_round",
    "isqrt",
    "isqrt_ceil",
    "exp_neg_q16",
    "rsqrt_q16",
    "wrap16",
    "trunc_div",
    "EXP_ZERO_N",
]


def r_floor(p: int, s: int) -> int:
    """§2 ``R_floor(p, s) = ⌊p / 2^s⌋``."""
    return p >> s


def r_half_up(p: int, s: int) -> int:
    """§2 ``R_half_up``: ``⌊(p + 2^(s−1)) / 2^s⌋`` for ``s ≥ 1``; a tie goes to +∞."""
    return p if s == 0 else (p + (1 << (s - 1))) >> s


def r_half_even(p: int, s: int) -> int:
    """§2 ``R_half_even``: ``q + 1`` when the remainder passes half, or equals it with ``q`` odd."""
    if s == 0:
        return p
    q = p >> s
    r = p - (q << s)
    h = 1 << (s - 1)
    return q + 1 if r > h or (r == h and q & 1) else q


_ROUND = {"floor": r_floor, "half_up": r_half_up, "half_even": r_half_even}


def r_round(p: int, s: int, mode: str) -> int:
    """``R_mode(p, s)`` for ``mode`` in ``floor``, ``half_up``, ``half_even`` (§2)."""
    return _ROUND[mode](p, s)


def isqrt(n: int) -> int:
    """§2 ``isqrt(n)``: the largest ``r ≥ 0`` with ``r² ≤ n``, for ``n ≥ 0``."""
    return _isqrt(n)


def isqrt_ceil(n: int) -> int:
    """§2 ``isqrt_ceil(n)``: the smallest ``r ≥ 0`` with ``r² ≥ n``, for ``n ≥ 0``."""
    r = _isqrt(n)
    return r if r * r == n else r + 1


#: ``exp_neg_q16`` is 0 from this ``n`` on (§2).
EXP_ZERO_N = 63


def exp_neg_q16(x: int, note=None) -> int:
    """§2 ``exp_neg_q16(x)`` for ``x ≤ 0``: the Q16 exponential, in ``[0, 65553]``.
    ``note(key, value)``, when given, hears each named intermediate as it is formed."""
    note = note or (lambda key, value: None)
    u = -x
    note("exp.negx", u)
    n = u // 45426
    if n >= EXP_ZERO_N:
        return 0
    g = 45426 * n
    note("exp.nl", g)
    t = x + g + 88670
    t2 = t * t
    note("exp.t2", t2)
    c = 23495 * (t2 >> 16)
    note("exp.c", c)
    return ((c >> 16) + 22544) >> n


def rsqrt_q16(v: int) -> int:
    """§2 ``rsqrt_q16(v)`` for ``v ≥ 0``: ``⌊2^32 / isqrt(v)⌋``, or 0 when ``isqrt(v) = 0``."""
    r = _isqrt(v)
    return 0 if r == 0 else (1 << 32) // r


def wrap16(a: int) -> int:
    """§2 ``wrap16(a) = ((a + 2^15) mod 2^16) − 2^15``."""
    return ((a + (1 << 15)) % (1 << 16)) - (1 << 15)


def trunc_div(a: int, b: int) -> int:
    """§2 ``trunc(a / b)``, rounded toward zero, for ``b > 0``."""
    q = abs(a) // b
    return q if a >= 0 else -q
