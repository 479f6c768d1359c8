"""``clamp`` (§5.5) vectors, and the ``check`` policy of an input (§3)."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

clamp_basic = basic("clamp", P.Clamp(-20, 35))


@covers("5:check-ends", "5:check-one-past")
def clamp_input_check_range():
    g = one("clamp", P.Clamp(-3, 3), channels=1, lo=-7, hi=9)
    return Case(
        g,
        [
            ([np.array([[[-7, 9]]])], []),
            ([np.array([[[-8, 0]]])], []),
            ([np.array([[[0, 10]]])], []),
        ],
    )


CASES = [clamp_basic, clamp_input_check_range]
