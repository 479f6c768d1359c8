"""``fill`` (§5.10) vectors."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

fill_basic = basic("fill", P.Fill(0, -(2**40)), out_channels=3)


@covers("5:scalar-one-past")
def fill_from_a_scalar():
    g = one("fill", P.Fill(1, 0), channels=1, scalars=[(-5, 5)], out_channels=2)
    x = [np.zeros((1, 2, 3), int)]
    return Case(g, [(x, [-5]), (x, [5]), (x, [6])])


CASES = [fill_basic, fill_from_a_scalar]
