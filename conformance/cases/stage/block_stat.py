"""E6 ``block_stat`` cases: block sums on positive and negative ties at every shift of §14.1
item 2, partial blocks, a block larger than the plane, ``b = 1``, the clamp, several
channels, and every condition refused."""

from ._shifts import SHIFTS

WIDE = 1 << 130


def _tensor(c: int, h: int, w: int, values: dict) -> dict:
    data = [0] * (c * h * w)
    for (ch, y, x), v in values.items():
        data[(ch * h + y) * w + x] = v
    return {"data": data, "shape": [c, h, w]}


def _ties(s: int):
    half = (1 << (s - 1)) if s else 0
    for d, name in ((-1, "below"), (0, "tie"), (1, "above")):
        pos, neg = 5 * (1 << s) + half + d, -6 * (1 << s) + half + d
        # a 2×2 block of two positions summing to pos, and a partial block holding neg
        x = _tensor(1, 2, 3, {(0, 0, 0): pos - 1, (0, 1, 1): 1, (0, 1, 2): neg})
        yield (
            f"block_stat_{name}_shift_{s}",
            {"x": x, "b": 2, "s": s, "lo": -WIDE, "hi": WIDE},
            {},
        )


def _ramp(c: int, h: int, w: int) -> dict:
    return {"data": [(i * 37) % 101 - 50 for i in range(c * h * w)], "shape": [c, h, w]}


CASES = [c for s in SHIFTS for c in _ties(s)] + [
    ("block_stat_jpegai_form", {"x": _ramp(2, 9, 11), "b": 8, "s": 6, "lo": 0, "hi": 4351}, {}),
    ("block_stat_odd_sizes", {"x": _ramp(3, 5, 7), "b": 3, "s": 1, "lo": -40, "hi": 40}, {}),
    ("block_stat_block_past_plane", {"x": _ramp(1, 3, 2), "b": 8, "s": 2, "lo": -99, "hi": 99}, {}),
    ("block_stat_b_1", {"x": _ramp(1, 2, 3), "b": 1, "s": 0, "lo": -99, "hi": 99}, {}),
    ("block_stat_one_by_one", {"x": _ramp(1, 1, 1), "b": 4, "s": 0, "lo": -99, "hi": 99}, {}),
    ("block_stat_clamped", {"x": _ramp(1, 4, 4), "b": 2, "s": 0, "lo": -3, "hi": 5}, {}),
    ("block_stat_lo_equals_hi", {"x": _ramp(1, 2, 2), "b": 2, "s": 0, "lo": 7, "hi": 7}, {}),
    ("block_stat_b_0_refused", {"x": _ramp(1, 2, 2), "b": 0, "s": 0, "lo": 0, "hi": 1}, {}),
    ("block_stat_shift_128_refused", {"x": _ramp(1, 2, 2), "b": 2, "s": 128, "lo": 0, "hi": 1}, {}),
    ("block_stat_lo_above_hi_refused", {"x": _ramp(1, 2, 2), "b": 2, "s": 0, "lo": 2, "hi": 1}, {}),
]
