"""``chunk_add`` (§5.5) vectors."""

from ._make import Case, covers, one
from ._ops import basic

chunk_add_basic = basic("chunk_add", shape=(4, 3, 5))


@covers("5:plan:chunk_add")
def chunk_add_odd_channels():
    # Three channels do not halve: the channel plan refuses at load.
    return Case(one("chunk_add", channels=3, out_channels=1, raw=True))


CASES = [chunk_add_basic, chunk_add_odd_channels]
