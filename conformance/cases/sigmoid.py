"""``sigmoid`` (§5.8) vectors."""

import numpy as np

from ._make import Case, covers, one
from ._ops import basic

sigmoid_basic = basic("sigmoid", None, lo=-400000, hi=400000)


@covers("6:sigmoid-elu-min-refused")
def sigmoid_range_reaching_minus_2_63():
    # |v| reaches 2^63 (exp.negx past i64): the graph fails acc64 and is refused at load.
    return Case(one("sigmoid", None, lo=-(2**63), hi=0), [])


@covers("6:sigmoid-elu-min-plus-one")
def sigmoid_range_stopping_at_minus_2_63_plus_1():
    g = one("sigmoid", None, channels=1, lo=-(2**63) + 1, hi=2**63 - 1)
    return Case(g, [([np.array([[[-(2**63) + 1, 0, 2**63 - 1, -1]]])], [])])


CASES = [
    sigmoid_basic,
    sigmoid_range_reaching_minus_2_63,
    sigmoid_range_stopping_at_minus_2_63_plus_1,
]
