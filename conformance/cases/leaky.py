"""``leaky`` (§5.5) vectors."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

leaky_basic = basic("leaky", P.Leaky(-5, 3))


@covers("6:leaky-floor")
def leaky_floors_away_from_zero():
    # a = 3, f = 2: ⌊−1·3 / 4⌋ = −1 and ⌊−3·3 / 4⌋ = −3, where truncation gives 0 and −2.
    g = one("leaky", P.Leaky(3, 2), channels=1, lo=-9, hi=9)
    return Case(g, [([np.array([[[-1, -3, 0, 5]]])], [])])


CASES = [leaky_basic, leaky_floors_away_from_zero]
