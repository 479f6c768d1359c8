"""``add`` (§5.5) vectors."""

import numpy as np

from ._make import Case, covers, one
from ._ops import basic

add_basic = basic("add", n_in=2, lo=-(2**30), hi=2**30 - 1)


@covers("5:plan:add")
def add_sizes_disagree():
    g = one("add", n_in=2)
    a, b = np.ones((2, 2, 3), int), np.ones((2, 3, 2), int)
    return Case(g, [([a, a], []), ([a, b], [])])


CASES = [add_basic, add_sizes_disagree]
