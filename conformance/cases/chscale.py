"""``chscale`` (§5.4) vectors."""

import numpy as np

from waiexport.builder import chscale

from ._make import Case, covers, one
from ._ops import basic

TABLE = [[3, -5], [7, 2], [-1, 4]]
chscale_basic = basic(
    "chscale", chscale(0, TABLE, shift=2, round="half_even"), scalars=[(0, 2)], scalar_values=[1]
)


@covers("5:scalar-ends", "5:scalar-one-past")
def chscale_scalar_range():
    g = one("chscale", chscale(0, TABLE, shift=1), scalars=[(0, 2)], size=(1, 2))
    x = [np.array([[[5, -6]], [[7, 8]]])]
    return Case(g, [(x, [0]), (x, [2]), (x, [3]), (x, [-1])])


CASES = [chscale_basic, chscale_scalar_range]
