"""``rescale`` (§5.4) vectors, and the rounding of every ``rq`` (§2, §5.1)."""

import numpy as np

from waiexport import params as P
from waiexport.builder import rq

from ._make import Case, covers, one
from ._ops import basic, named

rescale_basic = basic(
    "rescale",
    P.Rescale(rq(shift=[2, 5], mult=[3, -7], bias=[1, 2], bias_kind="post", round="half_up")),
)

SHIFTS = (0, 1, 31, 32, 62, 63, 64, 127)


def _ties(mode: str, s: int):
    """Positive and negative ties (and their neighbours) of ``R_mode(·, s)``: the value
    ``k·2^s + 2^(s−1)`` reaches the rounding as ``t·m`` with ``m`` absent. Shifts 64 and 127
    leave acc32 (§7.2), so their vectors are acc64 only."""

    def case():
        half = (1 << (s - 1)) if s else 0
        base = [k * (1 << s) + half for k in (0, 1, -1, -2)] + [
            half + 1,
            -half - 1,
            2**63 - 1 - half,
            -(2**63),
        ]
        values = [v for v in base if -(2**63) <= v < 2**63]
        lo, hi = min(values), max(values)
        g = one("rescale", P.Rescale(rq(shift=s, round=mode)), channels=1, lo=lo, hi=hi)
        return Case(g, [([np.array([[values]])], [])])

    items = [f"2:{mode}:+:{s}", f"2:{mode}:-:{s}"]
    return covers(*items)(named(f"rescale_{mode}_ties_shift_{s}", case))


#: For acc32 (operands of i32, §7.2): per shift, a multiplier and inputs ``t`` whose products
#: ``t·m`` are positive and negative ties. No two i32 operands form −2^62, so the negative tie
#: of shift 63 is in the acc64 vectors only.
ACC32_TIES = {
    0: (None, [3, -3, 0]),
    1: (None, [1, 3, -1, -3]),
    31: (1 << 30, [1, 3, -1, -3]),
    32: (1 << 30, [2, 6, -2, -6]),
    62: (-(1 << 31), [-(1 << 30), 1 << 30]),
    63: (-(1 << 31), [-(1 << 31)]),
}


def _ties32(mode: str, s: int):
    """Ties of ``R_mode(t·m, s)`` reached by i32 operands: the vector is tagged acc32."""
    m, ts = ACC32_TIES[s]

    def case():
        g = one(
            "rescale",
            P.Rescale(rq(shift=s, mult=m, round=mode)),
            channels=1,
            lo=min(ts),
            hi=max(ts),
        )
        return Case(g, [([np.array([[ts]])], [])])

    signs = {"+" if t * (m or 1) > 0 else "-" for t in ts if t * (m or 1)}
    return covers(*(f"2:{mode}:{sign}:{s}:acc32" for sign in sorted(signs)))(
        named(f"rescale_{mode}_ties_shift_{s}_i32_operands", case)
    )


TIES = [_ties(mode, s) for mode in P.ROUNDS for s in SHIFTS] + [
    _ties32(mode, s) for mode in P.ROUNDS for s in ACC32_TIES
]


@covers("6:rq-q-past-64")
def rescale_q_past_64_bits_while_y_fits():
    # t = 2^62, m = 2: q = 2^63 needs 65 bits (class acc), y = q − 1 fits: refused under acc64.
    g = one(
        "rescale",
        P.Rescale(rq(mult=2, bias=[-1], bias_kind="post")),
        channels=1,
        lo=2**62,
        hi=2**62,
    )
    return Case(g, [])


def _straddling(m: int, s: int, ts) -> list[int]:
    """Those ``t`` whose product ``t·m`` and its nearest float64 round to different
    ``R_half_up(·, s)``: a 53-bit significand moves a product near 2^62 by up to 2^9."""

    def r(p):
        return (p + (1 << (s - 1))) >> s

    return [t for t in ts if r(t * m) != r(int(float(t * m)))]


@covers("4:product-past-2^53")
def rescale_product_past_2_53():
    # i32 operands whose products reach (2^31 − 1)² and −2^31·(2^31 − 1), near ±2^62, and
    # products near ±2^61 next to a rounding boundary of shift 31, which float64 arithmetic
    # (a 53-bit significand) rounds across; the requantisation's floor division then has
    # operands past 2^24 and 2^53 too.
    m, s = 2**31 - 1, 31
    up = _straddling(m, s, range(2**30 - 600, 2**30 + 600))[:3]
    down = _straddling(m, s, range(-(2**30) - 600, -(2**30) + 600))[:3]
    ts = [2**31 - 1, -(2**31), *up, *down, 2**24 + 1, -(2**24) - 1]
    g = one(
        "rescale",
        P.Rescale(rq(shift=s, mult=m, round="half_up")),
        channels=1,
        lo=-(2**31),
        hi=2**31 - 1,
    )
    return Case(g, [([np.array([[ts]])], [])])


def rescale_int8_odd_multiplier():
    # The RGB8 output step's multiplier, 255 (§5.1), at shift 10 on every int8 value: ties
    # and near-ties of both signs of a scale that is no power of two, as an 8-bit NPU rounds
    # them.
    g = one(
        "rescale",
        P.Rescale(rq(shift=10, mult=255, round="half_up")),
        channels=1,
        lo=-128,
        hi=127,
        size=(16, 16),
    )
    return Case(g, [([np.arange(-128, 128).reshape(1, 16, 16)], [])])


CASES = [
    rescale_basic,
    *TIES,
    rescale_q_past_64_bits_while_y_fits,
    rescale_product_past_2_53,
    rescale_int8_odd_multiplier,
]
