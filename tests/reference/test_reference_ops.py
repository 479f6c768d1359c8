"""The vectorised reference against the literal implementation on random one-operator graphs,
against a float64 oracle for the convolutions, and against the spec's own numbers (§5)."""

import math
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiexport import Refusal
from waiexport import params as P
from waiexport.builder import GraphBuilder, conv, conv_transpose, igdn, layernorm, rq
from waiexport.optable import BY_NAME
from waiexport.reference import REFERENCE, arrays, decode
from waiexport.reference.literal import LITERAL

from _helpers import examples
from _oracles import conv_f64, conv_transpose_f64
from _strategies import case


def outcome(g, inputs, scalars, literal):
    try:
        return [o.astype(object).tolist() for o in decode(g, inputs, scalars, literal=literal)]
    except Refusal as r:
        return r.code


def run1(g, *inputs, scalars=()):
    out = decode(g, [np.asarray(x, dtype=object) for x in inputs], list(scalars))
    assert out == [o for o in out]
    return [o.astype(object).tolist() for o in out]


def test_both_implementations_cover_the_table():
    assert set(REFERENCE) == set(LITERAL) == set(BY_NAME)


@pytest.mark.parametrize("name", sorted(BY_NAME))
@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_vectorised_matches_literal(name, data):
    g, inputs, scalars = data.draw(case(name))
    assert outcome(g, inputs, scalars, False) == outcome(g, inputs, scalars, True)


# --- convolutions against float64 (exact while every partial sum stays below 2^53) ---------
# each sum both ways, whatever its size: compiled (numba's kernels) and by numpy, tap by tap

SUMS = pytest.mark.parametrize("sums", ["compiled", "taps"])


@contextmanager
def summed(sums: str):
    saved = arrays.COMPILED
    arrays.COMPILED = 0 if sums == "compiled" else 1 << 62
    try:
        yield
    finally:
        arrays.COMPILED = saved


def _acc_graph(kind, cin, shape, params):
    b = GraphBuilder()
    b.output(b.op(kind, b.input(cin, -100, 100, max_h=shape[0], max_w=shape[1]), params))
    return b.build()


CONV_T_CASES = [  # (H, W), kernel, stride, pad, out_pad: the awkward ones of §14.1 item 3
    ((3, 4), (3, 3), (2, 2), (1, 1), (1, 1)),
    ((2, 3), (2, 3), (2, 2), (0, 0), (2, 3)),  # output padding ≥ stride
    ((3, 3), (2, 2), (3, 3), (0, 0), (0, 0)),  # stride > kernel: positions no tap reaches
    ((1, 1), (5, 4), (2, 3), (1, 2), (0, 1)),  # 1×1 input, kernel larger than input
    ((3, 3), (3, 3), (1, 1), (2, 2), (0, 0)),  # padding = kernel − 1
    ((4, 1), (4, 1), (2, 1), (3, 0), (1, 0)),  # padding ≥ stride, a 1-D case
]


@SUMS
@pytest.mark.parametrize("hw, k, s, p, op", CONV_T_CASES)
def test_conv_transpose_against_float64(hw, k, s, p, op, sums):
    rng = np.random.default_rng(hash((hw, k, s)) % 2**32)
    x = rng.integers(-100, 101, (3,) + hw)
    w = rng.integers(-100, 101, (3, 2) + k)
    g = _acc_graph("conv_transpose", 3, hw, conv_transpose(w, stride=s, pad=p, out_pad=op))
    with summed(sums):
        got = np.array(run1(g, x)[0], dtype=np.int64)
    want = conv_transpose_f64(x, w, s, p, op)
    np.testing.assert_array_equal(got, want.astype(np.int64))


@SUMS
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_conv_against_float64(data, sums):
    c = data.draw(st.integers(1, 3))
    h, w_ = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    kh, kw = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    ph, pw = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    if h + 2 * ph < kh or w_ + 2 * pw < kw:
        return
    s = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x, wt = rng.integers(-100, 101, (c, h, w_)), rng.integers(-100, 101, (2, c, kh, kw))
    g = _acc_graph("conv", c, (h, w_), conv(wt, stride=s, pad=(ph, pw)))
    with summed(sums):
        got = np.array(run1(g, x)[0], dtype=np.int64)
    np.testing.assert_array_equal(got, conv_f64(x, wt, s, (ph, pw)).astype(np.int64))


@SUMS
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_conv_transpose_random_against_float64(data, sums):
    h, w_ = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    k = (data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5)))
    s = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    p = (data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4)))
    op = (data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4)))
    if (h - 1) * s[0] + k[0] + op[0] - 2 * p[0] < 1 or (w_ - 1) * s[1] + k[1] + op[1] - 2 * p[
        1
    ] < 1:
        return
    c = data.draw(st.integers(1, 9))  # the kernel sums four input channels a pass, then the rest
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x, wt = rng.integers(-100, 101, (c, h, w_)), rng.integers(-100, 101, (c, 3) + k)
    g = _acc_graph("conv_transpose", c, (h, w_), conv_transpose(wt, stride=s, pad=p, out_pad=op))
    with summed(sums):
        got = np.array(run1(g, x)[0], dtype=np.int64)
    np.testing.assert_array_equal(got, conv_transpose_f64(x, wt, s, p, op).astype(np.int64))


@SUMS
def test_depthwise_conv_against_float64(sums):
    rng = np.random.default_rng(7)
    x, wt = rng.integers(-100, 101, (4, 5, 5)), rng.integers(-100, 101, (4, 1, 3, 3))
    g = _acc_graph("conv", 4, (5, 5), conv(wt, pad=1, groups=4))
    want = np.stack([conv_f64(x[i : i + 1], wt[i : i + 1], (1, 1), (1, 1))[0] for i in range(4)])
    with summed(sums):
        got = np.array(run1(g, x)[0], dtype=np.int64)
    np.testing.assert_array_equal(got, want.astype(np.int64))


def test_conv_transpose_unreached_positions_hold_rq_of_zero():
    # stride 3 > kernel 1: rows and columns 1, 2 of each 3 get no tap; with a pre bias of 5
    # and floor shift 1 they hold rq(0) = ⌊(0 + 5) / 2⌋ = 2.
    g = _acc_graph(
        "conv_transpose", 1, (2, 2), conv_transpose([[[[4]]]], stride=3, rq=rq(shift=1, bias=[5]))
    )
    out = run1(g, [[[1, 2], [3, 4]]])[0][0]
    assert out == [[4, 2, 2, 6], [2, 2, 2, 2], [2, 2, 2, 2], [8, 2, 2, 10]]


# --- movement order ---------------------------------------------------------------------------


def test_pixel_shuffle_channel_order_by_hand():
    # §5.10: channel c·r² + i·r + j goes to row offset i, column offset j.
    b = GraphBuilder()
    b.output(b.op("pixel_shuffle", b.input(8, -9, 9), P.Factor(2)))
    x = np.arange(8).reshape(8, 1, 1)
    assert run1(b.build(), x)[0] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


@settings(max_examples=examples(50), deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3))
def test_pixel_unshuffle_inverts_pixel_shuffle(c, h, w, r):
    b = GraphBuilder()
    x = b.input(c * r * r, -9, 9)
    b.output(b.op("pixel_unshuffle", b.op("pixel_shuffle", x, P.Factor(r)), P.Factor(r)))
    data = np.arange(c * r * r * h * w).reshape(c * r * r, h, w) % 19 - 9
    assert run1(b.build(), data)[0] == data.tolist()


def test_subpos_split_order():
    b = GraphBuilder()
    parts = b.op("subpos_split", b.input(1, -9, 9), P.Subpos((3, 0, 2, 1)))
    b.output(*parts)
    outs = run1(b.build(), [[[1, 2], [3, 4]]])
    # order[k] = 2a + b picks in[2y + a][2x + b]: 3 → (1, 1), 0 → (0, 0), 2 → (1, 0), 1 → (0, 1)
    assert outs == [[[[4]]], [[[1]]], [[[3]]], [[[2]]]]


# --- the spec's numbers --------------------------------------------------------------------


def _unary(name, params, channels=1, lo=-(2**63), hi=2**63 - 1, max_w=0):
    b = GraphBuilder()
    b.output(b.op(name, b.input(channels, lo, hi, max_h=max_w and 1, max_w=max_w), params))
    return b.build()


@pytest.mark.parametrize("alpha", [3 * 65536, 1000, -1, -(2**63), 2**63 - 1])
def test_elu_at_zero_is_17_alpha_over_2_16(alpha):
    assert run1(_unary("elu", P.Elu(alpha)), [[[0]]])[0] == [[[(17 * alpha) // 65536]]]


def test_softmax_row_that_does_not_sum_to_2_16():
    out = run1(_unary("softmax", None, max_w=3), [[[0, 0, 0]]])[0][0][0]
    # each e = 65553, Σ = 196659: ⌊(65553·2^16 + 98329) / 196659⌋ = 21845, three of them.
    assert out == [21845] * 3 and sum(out) == 65535


def test_igdn_floors_each_term_not_the_sum():
    # γ all 1, gf 1, x = (1, 1): each term ⌊1/2⌋ = 0, so N = 0 and the output is 0;
    # flooring the sum ⌊2/2⌋ = 1 would give r = 1 and an output of 1.
    g = _unary("igdn", igdn([[1, 1], [1, 1]], [0, 0], gf=1), channels=2)
    assert run1(g, [[[1]], [[1]]])[0] == [[[0]], [[0]]]


@pytest.mark.parametrize(
    "v, a, f, want",
    [
        (-1, 1, 1, -1),
        (-3, 3, 2, -3),
        (-5, -3, 1, 7),
        (4, -7, 3, 4),
        (-(2**63), 2**63 - 1, 63, -(2**63) + 1),
    ],
)
def test_leaky_floors_negative_values_away_from_zero(v, a, f, want):
    assert (v * a) // 2**f == want or v >= 0
    assert run1(_unary("leaky", P.Leaky(a, f)), [[[v]]])[0] == [[[want]]]


@pytest.mark.parametrize(
    "x, want",
    [
        ([0, 0, 1], [0, 0, 65536]),  # C = 3, S = 1: the mean 1/3 rounds to m = 0
        ([0, 1, 1], [-65536, 0, 0]),  # S = 2: 2/3 rounds to m = 1
        ([0, -1, -1], [65536, 0, 0]),  # S = −2: −2/3 rounds to m = −1
        ([0, 1], [-65536, 0]),  # C = 2, mean exactly 1/2: M = 2, m = 1 (away from zero)
        ([0, -1], [65536, 0]),  # mean −1/2: m = −1
    ],
)
def test_layernorm_c_mean_rounding(x, want):
    # γ = 2^16 and β = 0 make the output n_c = ⌊d_c·k / 2^16⌋; ε = 1 and V = 0 give k = 2^32.
    g = _unary(
        "layernorm_c",
        layernorm([65536] * len(x), [0] * len(x), eps=1),
        channels=len(x),
        lo=-9,
        hi=9,
    )
    assert [row[0][0] for row in run1(g, np.array(x).reshape(-1, 1, 1))[0]] == want


def test_layernorm_c_epsilon_past_64_bits():
    # x = ±2^10: V = 2^20, U = 2^20 + 2^64 − 1 > 2^64, isqrt(U) = 2^32, k = 1, n = ⌊±2^10 / 2^16⌋.
    eps = 2**64 - 1
    assert math.isqrt(2**20 + eps) == 2**32
    g = _unary(
        "layernorm_c", layernorm([65536, 65536], [0, 0], eps=eps), channels=2, lo=-(2**10), hi=2**10
    )
    assert run1(g, [[[-(2**10)]], [[2**10]]])[0] == [[[-1]], [[0]]]


def test_rq_q_past_64_bits_while_y_fits():
    # t = 2^62, m = 2^62: p = 2^124; shift 63 gives q = 2^61 exactly.
    g = _unary("rescale", P.Rescale(rq(shift=63, mult=2**62, m_bytes=8)), lo=0, hi=2**62)
    assert run1(g, [[[2**62]]])[0] == [[[2**61]]]


@settings(max_examples=examples(15), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 1), st.integers(0, 2), st.integers(-5, 5))
def test_every_operator_graph_vectorised_matches_literal(seed, row, start, value):
    """A 40-operator graph using all 30 operators, a state input and three scalars."""
    from _helpers import every_op_graph

    g = every_op_graph(seed % 4)
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(-100, 101, (4, 8, 8)), np.full((2, 8, 8), 3)]
    assert outcome(g, inputs, [row, start, value], False) == outcome(
        g, inputs, [row, start, value], True
    )
