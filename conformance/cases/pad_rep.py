"""``pad_rep`` (§5.10) vectors."""

from waiexport import params as P

from ._ops import basic

pad_rep_basic = basic("pad_rep", P.PadRep(4))

CASES = [pad_rep_basic]
