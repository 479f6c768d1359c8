"""``layernorm_c`` (§5.7) vectors."""

import numpy as np

from waiexport.builder import layernorm

from ._make import Case, covers, one
from ._ops import basic

layernorm_c_basic = basic("layernorm_c", layernorm([70000, -3], [5, -9], eps=3))


@covers("6:layernorm-odd-half")
def layernorm_c_mean_rounding():
    # C = 3: S = 1, 2, −2 round the mean 1/3, 2/3, −2/3 to 0, 1, −1; C = 2 ties in the
    # graph below go away from zero.
    g = one("layernorm_c", layernorm([65536] * 3, [0] * 3, eps=1), channels=3, lo=-9, hi=9)
    return Case(
        g,
        [
            ([np.array([0, 0, 1]).reshape(3, 1, 1)], []),
            ([np.array([0, 1, 1]).reshape(3, 1, 1)], []),
            ([np.array([0, -1, -1]).reshape(3, 1, 1)], []),
        ],
    )


@covers("6:layernorm-odd-half")
def layernorm_c_half_mean():
    g = one("layernorm_c", layernorm([65536] * 2, [0] * 2, eps=1), channels=2, lo=-9, hi=9)
    return Case(
        g, [([np.array([0, 1]).reshape(2, 1, 1)], []), ([np.array([0, -1]).reshape(2, 1, 1)], [])]
    )


@covers("6:layernorm-eps-max")
def layernorm_c_epsilon_past_64_bits():
    # V + ε passes 2^64: isqrt(2^20 + 2^64 − 1) = 2^32, k = 1.
    g = one(
        "layernorm_c",
        layernorm([65536] * 2, [0] * 2, eps=2**64 - 1),
        channels=2,
        lo=-(2**10),
        hi=2**10,
    )
    return Case(g, [([np.array([-(2**10), 2**10]).reshape(2, 1, 1)], [])])


CASES = [
    layernorm_c_basic,
    layernorm_c_mean_rounding,
    layernorm_c_half_mean,
    layernorm_c_epsilon_past_64_bits,
]
