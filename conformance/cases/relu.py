"""``relu`` (§5.5) vectors."""

from ._ops import basic

relu_basic = basic("relu", lo=-(2**31) + 1, hi=2**31 - 1)

CASES = [relu_basic]
