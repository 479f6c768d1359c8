"""``crop`` (§5.10) vectors."""

import numpy as np

from waiexport.builder import crop

from ._make import Case, covers, one
from ._ops import basic

crop_basic = basic("crop", crop(1, 2, 2, 3))


@covers("5:plan:crop", "5:scalar-ends")
def crop_from_scalars():
    g = one(
        "crop", crop(("scalar", 0), 1, ("scalar", 1), 2), scalars=[(-1, 3), (1, 4)], size=(4, 4)
    )
    x = [np.arange(32).reshape(2, 4, 4)]
    return Case(g, [(x, [0, 4]), (x, [3, 1]), (x, [2, 3]), (x, [-1, 1])])


CASES = [crop_basic, crop_from_scalars]
