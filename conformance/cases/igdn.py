"""``igdn`` (§5.7) vectors."""

import numpy as np

from waiexport.builder import igdn

from ._make import Case, covers, one
from ._ops import basic

igdn_basic = basic("igdn", igdn([[3, -1], [2, 5]], [7, 1], gf=2, frac=3))


@covers("6:igdn-term-floor")
def igdn_floors_each_term():
    # γ all 1, gf 1, x = (1, 1): each term ⌊1/2⌋ = 0, so N = 0; flooring the sum gives 1.
    g = one("igdn", igdn([[1, 1], [1, 1]], [0, 0], gf=1), channels=2, lo=-5, hi=5)
    return Case(g, [([np.array([[[1]], [[1]]])], [])])


CASES = [igdn_basic, igdn_floors_each_term]
