"""``split`` (§5.10) vectors."""

from waiexport import params as P

from ._make import Case, covers, one
from ._ops import basic

split_basic = basic("split", P.Split(1, 2), shape=(4, 3, 5))


@covers("5:plan:split")
def split_past_the_channels():
    return Case(one("split", P.Split(1, 2), channels=2, out_channels=2, raw=True))


CASES = [split_basic, split_past_the_channels]
