"""``softmax`` (§5.7) vectors, and ``exp_neg_q16`` (§2)."""

import numpy as np

from ._make import Case, covers, one
from ._ops import basic

softmax_basic = basic("softmax", lo=-300000, hi=300000)


@covers("6:softmax-sum")
def softmax_row_not_summing_to_2_16():
    g = one("softmax", channels=1, size=(1, 3))
    return Case(g, [([np.zeros((1, 1, 3), int)], [])])


@covers("6:exp-n62-n63")
def softmax_exp_at_n_62_and_63():
    # v − m = −62·45426 gives n = 62 (⌊y / 2^62⌋ = 0); −63·45426 gives n = 63 (0 by rule).
    g = one("softmax", channels=1, lo=-(2**22), hi=0, size=(1, 4))
    return Case(g, [([np.array([[[0, -62 * 45426, -63 * 45426, -1]]])], [])])


CASES = [softmax_basic, softmax_row_not_summing_to_2_16, softmax_exp_at_n_62_and_63]
