"""Interval arithmetic of the bounds pass (§8.1): every primitive result saturated to
``[−2^255, 2^255]``, and a node that saturates anything is flagged."""

from __future__ import annotations

from math import isqrt

__all__ = ["LIMIT", "Sat", "bits", "hull", "fits_bits"]

LIMIT = 1 << 255
Iv = tuple  # (lo, hi)


def bits(iv: Iv) -> int:
    """§2 ``bits([lo, hi])``: the smallest ``N ≥ 1`` such that both ends fit iN."""
    return max(1, *(((v if v >= 0 else ~v).bit_length() + 1) for v in iv))


def fits_bits(iv: Iv, n: int) -> bool:
    """Whether both ends of ``iv`` fit iN."""
    return -(1 << (n - 1)) <= iv[0] and iv[1] <= (1 << (n - 1)) - 1


def hull(*ivs: Iv) -> Iv:
    """The smallest interval holding every one of ``ivs``."""
    return (min(iv[0] for iv in ivs), max(iv[1] for iv in ivs))


class Sat:
    """The primitive operations of §8.1 for one node, each result passed through
    ``sat(v) = clamp(v, −2^255, 2^255)``; ``hit`` records that ``sat`` changed one."""

    def __init__(self):
        self.hit = False

    def sat(self, v: int) -> int:
        if v > LIMIT:
            self.hit = True
            return LIMIT
        if v < -LIMIT:
            self.hit = True
            return -LIMIT
        return v

    def add(self, a: int, b: int) -> int:
        return self.sat(a + b)

    def sub(self, a: int, b: int) -> int:
        return self.sat(a - b)

    def mul(self, a: int, b: int) -> int:
        return self.sat(a * b)

    def fdiv(self, a: int, b: int) -> int:
        """``⌊a / b⌋`` for ``b > 0`` (a shift is ``b = 2^s``)."""
        return self.sat(a // b)

    def cdiv(self, a: int, b: int) -> int:
        """``⌈a / b⌉ = −⌊−a / b⌋`` for ``b > 0``."""
        return self.sat(-(-a // b))

    def isqrt(self, n: int) -> int:
        return self.sat(isqrt(n))

    def isqrt_ceil(self, n: int) -> int:
        r = isqrt(n)
        return self.sat(r if r * r == n else r + 1)

    def fold(self, start: int, terms) -> int:
        """``start + Σ terms`` as a left fold with ``sat`` after each addition (§8.1)."""
        acc = start
        for t in terms:
            acc = self.add(acc, t)
        return acc

    # --- intervals -------------------------------------------------------------------------
    def corner(self, a: Iv, b: Iv) -> Iv:
        """The corner hull of two intervals' products (§8.2)."""
        c = [self.mul(x, y) for x in a for y in b]
        return (min(c), max(c))

    def scaled(self, iv: Iv, k: int) -> Iv:
        """``[lo·k, hi·k]`` ordered, for a constant ``k``."""
        return self.corner(iv, (k, k))

    def shifted(self, iv: Iv, s: int) -> Iv:
        """``[⌊lo / 2^s⌋, ⌊hi / 2^s⌋]``."""
        return (self.fdiv(iv[0], 1 << s), self.fdiv(iv[1], 1 << s))

    def plus(self, iv: Iv, b: int) -> Iv:
        """``[lo + b, hi + b]``."""
        return (self.add(iv[0], b), self.add(iv[1], b))

    def abs_image(self, iv: Iv) -> Iv:
        """The image of ``iv`` under ``|·|`` (§8.3)."""
        lo, hi = iv
        if lo >= 0:
            return iv
        if hi <= 0:
            return (self.sat(-hi), self.sat(-lo))
        return (0, max(self.sat(-lo), hi))
