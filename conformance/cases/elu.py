"""``elu`` (§5.8) vectors."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

elu_basic = basic("elu", P.Elu(-70000), lo=-400000, hi=400000)


@covers("6:sigmoid-elu-min-refused")
def elu_range_reaching_minus_2_63():
    # |v| reaches 2^63 (exp.negx past i64): the graph fails acc64 and is refused at load.
    return Case(one("elu", P.Elu(-70000), lo=-(2**63), hi=0), [])


@covers("6:sigmoid-elu-min-plus-one")
def elu_range_stopping_at_minus_2_63_plus_1():
    g = one("elu", P.Elu(-70000), channels=1, lo=-(2**63) + 1, hi=2**63 - 1)
    return Case(g, [([np.array([[[-(2**63) + 1, 0, 2**63 - 1, -1]]])], [])])


@covers("6:elu-zero")
def elu_at_zero():
    # ⌊17·α / 2^16⌋ for α = −70000 and 3·2^16.
    return Case(one("elu", P.Elu(3 * 65536), channels=1), [([np.zeros((1, 1, 1), int)], [])])


CASES = [
    elu_basic,
    elu_range_reaching_minus_2_63,
    elu_range_stopping_at_minus_2_63_plus_1,
    elu_at_zero,
]
