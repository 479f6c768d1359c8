"""``l2norm`` (§5.7) vectors."""

from waiexport import params as P

from ._ops import basic

l2norm_basic = basic("l2norm", P.L2Norm(5), lo=-(2**20), hi=2**20)

CASES = [l2norm_basic]
