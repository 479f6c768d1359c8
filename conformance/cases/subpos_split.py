"""``subpos_split`` (§5.10) vectors."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

subpos_split_basic = basic("subpos_split", P.Subpos((2, 0, 3, 1)), shape=(2, 4, 6))


@covers("5:plan:subpos_split")
def subpos_split_odd_size():
    g = one("subpos_split", P.Subpos((0, 1, 2, 3)), channels=1)
    return Case(g, [([np.ones((1, 2, 2), int)], []), ([np.ones((1, 3, 2), int)], [])])


CASES = [subpos_split_basic, subpos_split_odd_size]
