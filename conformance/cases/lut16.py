"""``lut16`` (§5.6) vectors."""

import numpy as np

from waiexport.builder import lut16

from ._make import Case, covers, one
from ._ops import basic

TABLE = ((np.arange(65536) * 7919) % 65536 - 32768).astype(np.int64)
TABLE[0] = 0
lut16_basic = basic("lut16", lut16(TABLE), lo=-32767, hi=32767)


@covers("5:load:lut16-range")
def lut16_input_may_leave_the_table():
    # The input's range reaches −32768, past the table's [−32767, 32767]: refused at load.
    return Case(one("lut16", lut16(TABLE), lo=-32768, hi=0), [])


CASES = [lut16_basic, lut16_input_may_leave_the_table]
