"""``abs`` (§5.5) vectors."""

from ._ops import basic

abs_basic = basic("abs", lo=-(2**31) + 1, hi=2**31 - 1)

CASES = [abs_basic]
