"""``gram`` (§5.9) vectors."""

import numpy as np

from waiexport import params as P
from waiexport.builder import rq

from ._make import Case, covers, one
from ._ops import basic

gram_basic = basic("gram", P.Contraction(2, rq(shift=4, round="half_up")), shape=(4, 3, 5), n_in=2)


@covers("1:partial-sum-ends")
def gram_partial_sum_ends():
    # Every product at the term hull's end: L·max(0, term_hi) and L·min(0, term_lo).
    g = one("gram", P.Contraction(1, rq()), channels=1, n_in=2, lo=-9, hi=7, size=(2, 3))
    hi, lo = np.full((1, 2, 3), 7), np.full((1, 2, 3), -9)
    return Case(g, [([lo, lo], []), ([lo, hi], [])])


@covers("5:plan:gram")
def gram_sizes_disagree():
    g = one("gram", P.Contraction(1, rq()), channels=1, n_in=2, size=(3, 3))
    return Case(g, [([np.ones((1, 2, 3), int), np.ones((1, 3, 2), int)], [])])


CASES = [gram_basic, gram_partial_sum_ends, gram_sizes_disagree]
