"""``crop_to`` (§5.10) vectors."""

import numpy as np

from ._make import Case, covers, one


@covers("3:odd-sizes")
def crop_to_basic():
    g = one("crop_to", channels=[2, 1], size=(5, 5))
    return Case(g, [([np.arange(50).reshape(2, 5, 5), np.zeros((1, 3, 2), int)], [])])


@covers("5:plan:crop_to")
def crop_to_reference_larger():
    g = one("crop_to", channels=[2, 1])
    x = np.ones((2, 2, 3), int)
    return Case(g, [([x, np.ones((1, 2, 2), int)], []), ([x, np.ones((1, 3, 2), int)], [])])


CASES = [crop_to_basic, crop_to_reference_larger]
