"""``mul`` (§5.4) vectors."""

import numpy as np

from waiexport import params as P
from waiexport.builder import rq

from ._make import Case, covers, one


@covers("3:odd-sizes")
def mul_broadcast_one_channel():
    g = one("mul", P.Mul(rq(shift=3, round="half_up")), channels=[3, 1], size=(3, 5))
    rng = np.random.default_rng(5)
    return Case(
        g,
        [
            ([rng.integers(-100, 101, (3, 3, 5)), rng.integers(-100, 101, (1, 3, 5))], []),
            ([np.full((3, 3, 5), -100), np.full((1, 3, 5), 100)], []),
        ],
    )


@covers("5:plan:mul")
def mul_sizes_disagree():
    g = one("mul", P.Mul(rq()), channels=[2, 2])
    a = np.ones((2, 2, 2), int)
    return Case(g, [([a, a], []), ([a, np.ones((2, 2, 3), int)], [])])


CASES = [mul_broadcast_one_channel, mul_sizes_disagree]
