"""E5, literally."""

from ._common import r_half_up, refuse_unless


def run(inp, modes):
    v, s, n = inp["v"], inp["s"], inp["n"]
    refuse_unless(0 <= s <= 127, "s")
    refuse_unless(n >= 1, "n")
    return {"index": min(max(r_half_up(v, s), 0), n - 1)}
