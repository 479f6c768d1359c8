"""E5 ``scale_index`` cases: ties on positive and negative values at every shift of §14.1
item 2, the clamp at both ends, ``n = 1``, and every condition refused."""

from ._shifts import SHIFTS


def _ties(s: int):
    half = (1 << (s - 1)) if s else 0
    for k, sign in ((3, "pos"), (-4, "neg")):
        v = k * (1 << s) + half
        for d, name in ((-1, "below"), (0, "tie"), (1, "above")):
            yield (f"scale_index_{sign}_{name}_shift_{s}", {"v": v + d, "s": s, "n": 8}, {})


CASES = [c for s in SHIFTS for c in _ties(s)] + [
    ("scale_index_clamp_low", {"v": -100, "s": 2, "n": 32}, {}),
    ("scale_index_clamp_high", {"v": 10**6, "s": 7, "n": 32}, {}),
    ("scale_index_top_index", {"v": 31 * 128 + 63, "s": 7, "n": 32}, {}),
    ("scale_index_n_1", {"v": 999, "s": 0, "n": 1}, {}),
    ("scale_index_n_0_refused", {"v": 1, "s": 0, "n": 0}, {}),
    ("scale_index_shift_128_refused", {"v": 1, "s": 128, "n": 4}, {}),
    ("scale_index_shift_negative_refused", {"v": 1, "s": -1, "n": 4}, {}),
]
