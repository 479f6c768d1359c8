"""``pixel_unshuffle`` (§5.10) vectors."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

pixel_unshuffle_basic = basic("pixel_unshuffle", P.Factor(2), shape=(1, 4, 6))


@covers("5:plan:pixel_unshuffle")
def pixel_unshuffle_odd_size():
    g = one("pixel_unshuffle", P.Factor(2), channels=1, size=(4, 4))
    return Case(g, [([np.ones((1, 2, 4), int)], []), ([np.ones((1, 3, 4), int)], [])])


CASES = [pixel_unshuffle_basic, pixel_unshuffle_odd_size]
