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


def igdn_shift_past_63():
    # gf 125 on small values: a negative term's floor shift passes 63 bits and floors to −1;
    # an int64 fabric that shifts by a second 2^(s − 62) let that constant wrap to −2^63,
    # gave 0 for the −1, and so isqrt(1) where the sum is isqrt(0) (acc64 only).
    g = one("igdn", igdn([[-5, 0], [0, 3]], [1, 1], gf=125), channels=2)
    return Case(g, [([np.array([[[-7, 0, 5]], [[-3, 9, 0]]])], [])])


CASES = [igdn_basic, igdn_floors_each_term, igdn_shift_past_63]
