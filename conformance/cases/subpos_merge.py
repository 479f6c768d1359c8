"""``subpos_merge`` (§5.10) vectors."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

subpos_merge_basic = basic("subpos_merge", P.Subpos((1, 3, 0, 2)), n_in=4)


@covers("5:plan:subpos_merge")
def subpos_merge_sizes_disagree():
    g = one("subpos_merge", P.Subpos((0, 1, 2, 3)), channels=1, n_in=4)
    a, b = np.ones((1, 2, 2), int), np.ones((1, 2, 3), int)
    return Case(g, [([a, a, a, a], []), ([a, a, b, a], [])])


CASES = [subpos_merge_basic, subpos_merge_sizes_disagree]
