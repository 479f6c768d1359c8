"""``pixel_shuffle`` (§5.10) vectors."""

import numpy as np

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

pixel_shuffle_basic = basic("pixel_shuffle", P.Factor(2), shape=(8, 3, 5))


@covers("6:pixel-shuffle-order")
def pixel_shuffle_channel_order():
    # Channel c·r² + i·r + j lands at row offset i, column offset j: 0 1 / 2 3.
    g = one("pixel_shuffle", P.Factor(2), channels=4)
    return Case(g, [([np.arange(4).reshape(4, 1, 1)], [])])


@covers("5:plan:pixel_shuffle")
def pixel_shuffle_channels_not_a_multiple():
    return Case(one("pixel_shuffle", P.Factor(2), channels=6, out_channels=1, raw=True))


CASES = [pixel_shuffle_basic, pixel_shuffle_channel_order, pixel_shuffle_channels_not_a_multiple]
