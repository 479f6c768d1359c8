"""``concat`` (§5.10) vectors."""

import numpy as np

from ._make import Case, covers, one
from ._ops import basic

concat_basic = basic("concat", n_in=3)


@covers("5:plan:concat")
def concat_sizes_disagree():
    g = one("concat", channels=[1, 2])
    return Case(
        g,
        [
            ([np.ones((1, 2, 2), int), np.ones((2, 2, 2), int)], []),
            ([np.ones((1, 2, 2), int), np.ones((2, 2, 3), int)], []),
        ],
    )


CASES = [concat_basic, concat_sizes_disagree]
