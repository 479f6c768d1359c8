"""The integer functions of §2, scalar and vectorised, against the spec's numbers and against
independent oracles (``fractions.Fraction`` rounding, ``math.isqrt``-free squares)."""

from fractions import Fraction
from math import floor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waiexport.reference import arrays as A
from waiexport.reference.integer import (
    exp_neg_q16,
    isqrt,
    isqrt_ceil,
    r_floor,
    r_half_even,
    r_half_up,
    r_round,
    rsqrt_q16,
    trunc_div,
    wrap16,
)

from _helpers import examples

SHIFTS = [0, 1, 31, 32, 62, 63, 64, 127]


def oracle(p: int, s: int, mode: str) -> int:
    """Rounding of the exact rational ``p / 2^s``: Python rounds a Fraction half to even."""
    f = Fraction(p, 2**s)
    return {"floor": floor(f), "half_up": floor(f + Fraction(1, 2)), "half_even": round(f)}[mode]


def test_exp_neg_q16_at_zero_is_65553():
    assert exp_neg_q16(0) == 65553


def test_exp_neg_q16_n_62_and_63():
    # n = 62: y = ⌊c / 2^16⌋ + 22544 ≤ 65553 < 2^62, so ⌊y / 2^62⌋ = 0 by the formula itself;
    # n = 63 is 0 by definition, and nothing past it is formed.
    assert exp_neg_q16(-62 * 45426) == 0 and exp_neg_q16(-62 * 45426 - 45425) == 0
    assert exp_neg_q16(-63 * 45426) == 0 and exp_neg_q16(-(2**200)) == 0
    # n = 1 and n = 16 are not yet 0: the shift is what takes the value down.
    assert exp_neg_q16(-45426) == exp_neg_q16(0 - 45426) > 0
    assert exp_neg_q16(-16 * 45426) == 65553 >> 16 == 1


def test_exp_neg_q16_by_hand():
    # x = −1: u = 1, n = 0, r = −1, t = 88669, q = ⌊88669² / 2^16⌋ = 119967,
    # y = ⌊23495·119967 / 2^16⌋ + 22544 = 43008 + 22544 = 65552.
    assert (88669**2) >> 16 == 119967 and (23495 * 119967) >> 16 == 43008
    assert exp_neg_q16(-1) == 65552
    # x = −45426: n = 1, r = 0, t = 88670, the same y as x = 0, halved: 65553 >> 1.
    assert exp_neg_q16(-45426) == 65553 >> 1


def test_exp_neg_q16_is_non_increasing_and_in_range():
    values = [exp_neg_q16(-u) for u in range(0, 3 * 45426, 97)]
    assert all(a >= b for a, b in zip(values, values[1:]))
    assert all(0 <= v <= 65553 for v in values)


@pytest.mark.parametrize("mode", ["floor", "half_up", "half_even"])
@pytest.mark.parametrize("s", SHIFTS)
def test_rounding_on_ties_positive_and_negative(mode, s):
    half = 1 << (s - 1) if s else 0
    cases = [0, 1, -1, 2**63 - 1, -(2**63)]
    if s:
        cases += [k * 2**s + half for k in (0, 1, 2, 3, -1, -2, -3)]  # exact ties
        cases += [k * 2**s + half + d for k in (0, 1, -1, -2) for d in (-1, 1)]
    for p in cases:
        assert r_round(p, s, mode) == oracle(p, s, mode), (p, s)
    got = A.rround(A.compact(np.array(cases, dtype=object)), s, mode)
    assert got.astype(object).tolist() == [oracle(p, s, mode) for p in cases]


def test_tie_directions_by_hand():
    assert r_half_up(5, 1) == 3 and r_half_up(-5, 1) == -2  # ties toward +∞
    assert r_half_even(5, 1) == 2 and r_half_even(7, 1) == 4  # to the even neighbour
    assert r_half_even(-5, 1) == -2 and r_half_even(-7, 1) == -4
    assert r_floor(-5, 1) == -3 and r_floor(-1, 127) == -1


@settings(max_examples=examples(400), deadline=None)
@given(
    st.integers(-(2**130), 2**130),
    st.integers(0, 127),
    st.sampled_from(["floor", "half_up", "half_even"]),
)
def test_rounding_matches_the_rational_oracle(p, s, mode):
    assert r_round(p, s, mode) == oracle(p, s, mode)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20),
    st.integers(0, 127),
    st.sampled_from(["floor", "half_up", "half_even"]),
)
def test_vectorised_rounding_matches_scalar(ps, s, mode):
    arr = np.array(ps, dtype=np.int64)
    assert A.rround(arr, s, mode).astype(object).tolist() == [r_round(p, s, mode) for p in ps]


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**200))
def test_isqrt_and_ceil(n):
    r, rc = isqrt(n), isqrt_ceil(n)
    assert r * r <= n < (r + 1) ** 2
    assert rc * rc >= n and (rc == 0 or (rc - 1) ** 2 < n)


def test_rsqrt_q16():
    assert rsqrt_q16(0) == 0 and rsqrt_q16(1) == 2**32 and rsqrt_q16(3) == 2**32
    assert rsqrt_q16(4) == 2**31 and rsqrt_q16(2**64) == 2**32 // 2**32 == 1
    v = np.array([0, 1, 3, 4, 2**62, 2**126], dtype=object)
    assert A.rsqrt_q16(v).astype(object).tolist() == [rsqrt_q16(int(x)) for x in v]


def test_wrap16_and_trunc():
    assert [wrap16(a) for a in (32767, 32768, -32769, 65536)] == [32767, -32768, 32767, 0]
    assert trunc_div(-7, 2) == -3 and trunc_div(7, 2) == 3
    assert A.trunc_div(np.array([-7, 7, -1, 0]), 2).tolist() == [-3, 3, 0, 0]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(-(2**64), 0), min_size=1, max_size=30))
def test_vectorised_exp_matches_scalar(xs):
    got = A.exp_neg_q16(A.compact(np.array(xs, dtype=object)))
    assert got.astype(object).tolist() == [exp_neg_q16(x) for x in xs]


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=10),
    st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=10),
)
def test_exact_array_arithmetic(a, b):
    n = min(len(a), len(b))
    x, y = np.array(a[:n], dtype=np.int64), np.array(b[:n], dtype=np.int64)
    assert A.add(x, y).astype(object).tolist() == [i + j for i, j in zip(a, b)]
    assert A.sub(x, y).astype(object).tolist() == [i - j for i, j in zip(a, b)]
    assert A.mul(x, y).astype(object).tolist() == [i * j for i, j in zip(a, b)]
