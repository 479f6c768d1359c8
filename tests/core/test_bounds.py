"""The bounds pass (§8.1–§8.3): intervals worked by hand from the §8.3 text, the load refusals
of step 8, and soundness: every value the literal reference forms lies in its certified
interval."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiexport import Refusal, write
from waiexport import params as P
from waiexport.bounds import certify_graph
from waiexport.bounds.interval import LIMIT, bits
from waiexport.builder import (
    GraphBuilder,
    chscale,
    conv,
    conv_transpose,
    igdn,
    layernorm,
    lut16,
    rq,
)
from waiexport.load import load
from waiexport.optable import BY_NAME
from waiexport.reference import decode

from _helpers import every_op_graph, examples
from _strategies import case


def node(g, k=0):
    return certify_graph(g).nodes[k]


def one(name, params, lo, hi, channels=1, max_hw=0, **kw):
    b = GraphBuilder()
    x = b.input(channels, lo, hi, max_h=max_hw, max_w=max_hw)
    b.output(b.op(name, x, params, **kw))
    return b.build()


def test_bits():
    assert [
        bits(iv)
        for iv in [
            (0, 0),
            (-1, 0),
            (0, 1),
            (-128, 127),
            (-129, 0),
            (0, 128),
            (-(2**31), 2**31 - 1),
            (0, 2**31),
        ]
    ] == [1, 1, 2, 8, 9, 9, 32, 33]


def test_conv_by_hand():
    # w = (2, −3), input [−4, 5], pre bias 7: terms [−8, 10] and [−15, 12];
    # A = [min(0, 7) − 8 − 15, 7 + 10 + 12] = [−23, 29]; floor shift 1 → [−12, 14].
    g = one("conv", conv([[[[2, -3]]]], rq=rq(shift=1, bias=[7])), -4, 5)
    n = node(g)
    assert n.result.intermediates == {
        "conv.term": (-15, 12),
        "conv.acc": (-23, 29),
        "rq.t": (-23, 29),
        "rq.p": (-23, 29),
        "rq.q": (-12, 14),
        "rq.y": (-12, 14),
    }
    assert n.result.results == [(-12, 14)] and not n.saturated


def test_conv_transpose_per_residue_hull_is_tighter_than_all_taps():
    # k 2, stride 2: each residue has one tap; input [0, 10], weights 5: A(K_ρ) = [0, 50],
    # where all four taps would give [0, 200].
    g = one("conv_transpose", conv_transpose(np.full((1, 1, 2, 2), 5), stride=2), 0, 10)
    assert node(g).result.intermediates["convT.acc"] == (0, 50)
    # stride 3 > kernel 2: a residue with no taps holds the bias alone: [min(0, b), max(0, b)]
    g = one(
        "conv_transpose",
        conv_transpose(np.full((1, 1, 2, 2), 5), stride=3, rq=rq(bias=[-9])),
        0,
        10,
    )
    assert node(g).result.intermediates["convT.acc"] == (-9, 50)


def test_rq_half_up_adds_its_addend_to_rq_p_only():
    # t = [−5, 6], m = 3, s = 2, half_up: P = [−15, 18], rq.p = [−15, 18 + 2],
    # rq.q = [⌊(−15 + 2)/4⌋, ⌊(18 + 2)/4⌋] = [−4, 5], post bias −1.
    g = one(
        "rescale",
        P.Rescale(rq(shift=2, mult=3, bias=[-1], bias_kind="post", round="half_up")),
        -5,
        6,
    )
    assert node(g).result.intermediates == {
        "rq.t": (-5, 6),
        "rq.p": (-15, 20),
        "rq.q": (-4, 5),
        "rq.y": (-5, 4),
    }


def test_leaky_on_a_range_straddling_zero():
    # [−7, 5], a = 3, f = 1: leaky.p = corner([−7, −1], [3, 3]) = [−21, −3];
    # negative part [⌊−21/2⌋, ⌊−3/2⌋] = [−11, −2]; with [0, 5]: [−11, 5].
    n = node(one("leaky", P.Leaky(3, 1), -7, 5))
    assert n.result.intermediates == {"leaky.p": (-21, -3)} and n.result.results == [(-11, 5)]
    assert node(one("leaky", P.Leaky(3, 1), 2, 5)).result.intermediates == {"leaky.p": (0, 0)}


def test_igdn_final_norm_not_igdn_N():
    # γ = −1, β = 10, input [−3, 3], gf 0: x2 = [0, 9], gx2 = term = [−9, 0],
    # igdn.N = [min(0, 10) − 9, 10 + 0] = [−9, 10]; final norm [10 − 9, 10 + 0] = [1, 10],
    # so igdn.r = [1, 3] (igdn.N would give [0, 3]); xr = [−9, 9]; frac 1 → [−5, 4].
    n = node(one("igdn", igdn([[-1]], [10], frac=1), -3, 3))
    assert n.result.intermediates == {
        "igdn.x2": (0, 9),
        "igdn.gx2": (-9, 0),
        "igdn.term": (-9, 0),
        "igdn.N": (-9, 10),
        "igdn.r": (1, 3),
        "igdn.xr": (-9, 9),
    }
    assert n.result.results == [(-5, 4)]


def test_layernorm_c_with_epsilon_2_64_minus_1():
    # C = 2, input [−4, 4], ε = 2^64 − 1: r0 = 2^32 − 1, ⌊2^32/r0⌋ = 1, span 8;
    # D = min(8·1, ⌈2·2^32·2^32 / r0⌉) = 8; N = min(⌊8/2^16⌋ + 1, N_max) = 1.
    eps = 2**64 - 1
    n = node(one("layernorm_c", layernorm([65536, -3], [0, 1], eps=eps), -4, 4, channels=2))
    assert n.result.intermediates == {
        "ln.S": (-8, 8),
        "ln.m": (-9, 9),
        "ln.d": (-8, 8),
        "ln.T": (0, 128),
        "ln.v": (eps, 64 + eps),
        "rsq.num": (2**32, 2**32),
        "ln.k": (0, 1),
        "ln.dk": (-8, 8),
        "ln.n": (-1, 1),
        "ln.ng": (-65536, 65536),
    }
    assert n.result.results == [(-1, 1)]


def test_fixed_exp_intervals_and_softmax():
    n = node(one("softmax", None, -10, 100000, max_hw=7))
    assert n.result.intermediates == {
        "sm.diff": (-100010, 0),
        "exp.negx": (0, 100010),
        "exp.nl": (0, 2 * 45426),
        "exp.t2": (43245**2, 88670**2),
        "exp.c": (0, 23495 * (88670**2 >> 16)),
        "sm.sum": (0, 7 * 65553),
        "sm.num": (0, 65553 * 65536 + 7 * 65553 // 2),
    }
    assert n.result.results == [(0, 65536)]


def test_elu_result_hull():
    # α = −3: elu.p = corner([−3, −3], [−2^16, 17]) = [−51, 196608]; ⌊·/2^16⌋ = [−1, 3];
    # with [max(l, 1), h] = [1, 9]: [−1, 9].
    n = node(one("elu", P.Elu(-3), -20, 9))
    assert n.result.intermediates["elu.p"] == (-51, 196608)
    assert n.result.intermediates["exp.negx"] == (0, 20)
    assert n.result.results == [(-1, 9)]


def test_mul_chscale_and_elementwise_by_hand():
    b = GraphBuilder()
    s = b.scalar(1, 2)
    a = b.input(2, -3, 4)
    c = b.input(1, -5, 2)
    m = b.op("mul", [a, c], P.Mul(rq(shift=1)))  # corner hull: [−20, 15]; ⌊·/2⌋
    ch = b.op("chscale", a, chscale(s, [[9, 9], [2, -1], [3, 1]], shift=0))
    ca = b.op("chunk_add", a)
    ab = b.op("abs", c)
    b.output(m, ch, ca, ab)
    nodes = certify_graph(b.build()).nodes
    assert nodes[0].result.intermediates == {
        "mul.p": (-20, 15),
        "rq.t": (-20, 15),
        "rq.p": (-20, 15),
        "rq.q": (-10, 7),
        "rq.y": (-10, 7),
    }
    # rows 1..2 only (row 0's 9 is out of the scalar's range): m ∈ {2, −1, 3, 1} on [−3, 4]
    assert nodes[1].result.intermediates["rq.p"] == (-9, 12)
    assert nodes[2].result.results == [(-6, 8)] and nodes[3].result.results == [(0, 5)]


def test_gram_apply_l2norm_sigmoid_by_hand():
    b = GraphBuilder()
    a = b.input(2, -3, 4, max_h=2, max_w=5)
    g = b.op("gram", [a, a], P.Contraction(1, rq(shift=2)))  # term [−12, 16], L = 10
    ap = b.op("apply", [g, a], P.Contraction(1, rq()))  # d = 2
    l2 = b.op("l2norm", a, P.L2Norm(7))
    sg = b.op("sigmoid", a)
    b.output(ap, l2, sg)
    n = certify_graph(b.build()).nodes
    assert n[0].result.intermediates["gram.acc"] == (-120, 160)
    assert n[0].result.results == [(-30, 40)]
    # corner hull of [−30, 40] and [−3, 4]: {90, −120, −120, 160}; d = 2
    assert n[1].result.intermediates["apply.term"] == (-120, 160)
    assert n[1].result.intermediates["apply.acc"] == (-240, 320)
    assert n[2].result.intermediates == {
        "l2.T": (0, 10 * 16 + 7),
        "rsq.num": (2**32, 2**32),
        "l2.k": (0, 2**32 // 2),
        "l2.vk": (-(2**32), 2**32),
    }
    assert n[3].result.intermediates["exp.negx"] == (0, 4)
    assert n[3].result.intermediates["sig.num"] == (0, 65553 * 65536)


def test_lut16_interval_is_the_table_over_the_input_range():
    table = np.zeros(65536, int)
    table[32768 - 2 : 32768 + 3] = [7, -4, 0, 9, -30]  # T[v + 32768] for v = −2..2
    assert node(one("lut16", lut16(table), -2, 1)).result.results == [(-4, 9)]
    assert node(one("lut16", lut16(table), -1, 2)).result.results == [(-30, 9)]


def test_movement_and_fill():
    b = GraphBuilder()
    s = b.scalar(-4, 9)
    x = b.input(2, -3, 3)
    z = b.input(2, 10, 20)
    c = b.op("concat", [x, z])
    f = b.op("fill", x, P.Fill(1, s), channels=1)
    b.output(c, f)
    gb = certify_graph(b.build())
    assert gb.tensors[c] == (-3, 20) and gb.tensors[f] == (-4, 9)


def test_policies_clamp_and_check():
    b = GraphBuilder()
    x = b.input(1, -100, 100)
    y = b.op("relu", x, policy="clamp", lo=-5, hi=50)
    z = b.op("abs", y, policy="check", lo=3, hi=80)
    b.output(z)
    gb = certify_graph(b.build())
    assert gb.nodes[0].result.results == [(0, 100)] and gb.tensors[y] == (0, 50)
    assert gb.tensors[z] == (3, 50)


def test_empty_check_interval_is_refused_at_load():
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -100, -1), policy="check", lo=1, hi=5))
    with pytest.raises(Refusal, match="misses its producer's"):
        load(write(b.build()))


def test_lut16_input_range_is_checked_at_load():
    g = one("lut16", lut16(np.zeros(65536, int)), -32768, 0)
    with pytest.raises(Refusal, match="not within"):
        load(write(g))
    load(write(one("lut16", lut16(np.zeros(65536, int)), -32767, 32767)))


def test_rq_whose_q_passes_64_bits_while_y_fits_is_refused_under_acc64():
    # t = 2^62, m = 2, s = 0: p = q = 2^63 (65 bits; rq.p is a product, rq.q is not),
    # post bias −1: y = 2^63 − 1 fits i64.
    g = one("rescale", P.Rescale(rq(mult=2, bias=[-1], bias_kind="post")), 2**62, 2**62)
    n = node(g)
    assert n.result.intermediates["rq.q"] == (2**63, 2**63)
    assert n.result.results == [(2**63 - 1, 2**63 - 1)]
    with pytest.raises(Refusal, match="does not meet acc64: rq.q needs 65 bits"):
        load(write(g))


def test_saturation_at_2_255():
    # x2 of an input near 2^255 cannot be reached from i64 inputs directly, so chain: a
    # rescale by 2^63 − 1 twice, then igdn squares a value near 2^252.
    b = GraphBuilder()
    t = b.input(1, -(2**63), 2**63 - 1)
    for _ in range(3):
        t = b.op("rescale", t, P.Rescale(rq(mult=2**63 - 1, m_bytes=8)))
    b.output(b.op("igdn", t, igdn([[2**62]], [0])))
    gb = certify_graph(b.build())
    assert not gb.nodes[2].saturated and gb.nodes[3].saturated
    assert gb.nodes[3].result.intermediates["igdn.x2"] == (0, LIMIT)


# --- soundness ------------------------------------------------------------------------------


def assert_sound(g, inputs, scalars):
    gb = certify_graph(g)
    seen = []

    def note(index, key, value):
        seen.append((index, key, value))

    try:
        env = decode(g, inputs, scalars, literal=True, keep=True, note=note)
    except Refusal:
        return
    for index, key, value in seen:
        nb = gb.nodes[index]
        if nb.saturated:
            continue
        lo, hi = nb.result.intermediates[key]
        assert lo <= value <= hi, (nb.op.name, key, value, (lo, hi))
    for t, value in env.items():
        lo, hi = gb.tensors[t]
        assert value.size == 0 or lo <= value.min() and value.max() <= hi, (t, lo, hi)


@pytest.mark.parametrize("name", sorted(set(BY_NAME) - {"lut16"}) + ["lut16"])
@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_every_value_lies_in_its_certified_interval(name, data):
    g, inputs, scalars = data.draw(case(name))
    assert_sound(g, inputs, scalars)


@settings(max_examples=examples(10), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_value_of_a_40_operator_graph_lies_in_its_interval(seed):
    rng = np.random.default_rng(seed)
    g = every_op_graph(seed % 3)
    inputs = [rng.integers(-100, 101, (4, 8, 8)), np.full((2, 8, 8), 3)]
    assert_sound(
        g, inputs, [int(rng.integers(0, 2)), int(rng.integers(0, 3)), int(rng.integers(-5, 6))]
    )


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_partial_sum_interval_is_attained_at_the_input_ends(data):
    """A conv whose input sits at the ends of its range forms exactly the ends of
    A(K, b) (§8.2, §14.1 item 1): the interval is sound and no wider than it must be."""
    ints = st.integers(-50, 50)
    w = np.array(data.draw(st.lists(ints, min_size=8, max_size=8))).reshape(1, 2, 2, 2)
    b = data.draw(st.integers(-500, 500))
    lo, hi = -data.draw(st.integers(0, 99)), data.draw(st.integers(0, 99))
    g = one("conv", conv(w, rq=rq(bias=[b])), lo, hi, channels=2, max_hw=2)
    acc = node(g).result.intermediates["conv.acc"]
    seen = []
    for up in (True, False):
        x = np.where((w[0] > 0) == up, hi, lo)
        decode(
            g,
            [x],
            [],
            literal=True,
            note=lambda i, k, v: seen.append(v) if k in ("conv.acc", "rq.t") else None,
        )
    assert (min(seen), max(seen)) == acc


@pytest.mark.parametrize("name", ["conv", "conv_transpose"])
@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_few_sums_equal_the_literal_fold(name, data):
    """§8.2: the few-sums path gives the integers of the term-by-term fold, saturation and
    all, on random weights and intervals up to i64."""
    g, _, _ = data.draw(case(name))
    fast, slow = certify_graph(g), certify_graph(g, literal=True)
    assert [(n.result.intermediates, n.result.results, n.saturated) for n in fast.nodes] == [
        (n.result.intermediates, n.result.results, n.saturated) for n in slow.nodes
    ]


def test_sign_sums_whose_sum_and_magnitude_each_fit_i64_but_not_together():
    import numpy as np

    from waiexport.bounds.linear import _sign_sums

    w = np.array([[2**62 - 1, 2**62 - 1]], dtype=np.int64)  # 2·max < 2^63, Σw + Σ|w| is not
    assert _sign_sums(w) == ([2**63 - 2], [0])


def _magnitudes(top: int):
    """Integers of every magnitude up to ``2^top``: an exponent drawn first, then a value."""
    return st.integers(0, top).flatmap(lambda e: st.integers(-(1 << e), 1 << e))


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data())
def test_the_rq_rules_on_many_channels_at_once_equal_them_channel_by_channel(data):
    # the int64 path must give the loop's integers wherever it takes a case (ties of
    # half_even included, products near 2^63 refused), and take every case whose values fit
    # with room (ends to 2^40, multipliers to 2^20, shifts to 21, biases to 2^40)
    from waiexport.bounds.interval import Sat
    from waiexport.bounds.requant import _hulls, _hulls_i64

    n = data.draw(st.integers(16, 40))
    small = data.draw(st.booleans())
    end, mult, bias = (
        (_magnitudes(40), _magnitudes(20), _magnitudes(40))
        if small
        else (_magnitudes(70), st.just(0) | _magnitudes(62), st.integers(-(1 << 63), (1 << 63) - 1))
    )
    shift = st.integers(0, 21 if small else 63)
    ts = [
        tuple(sorted(data.draw(st.tuples(end, end))))
        for _ in range(data.draw(st.sampled_from([1, n])))
    ]
    m_kind, s_kind = data.draw(st.integers(0, 2)), data.draw(st.integers(1, 2))
    bias_kind = data.draw(st.sampled_from(["none", "pre", "post"]))
    rq = P.RQ(
        round=data.draw(st.sampled_from(["floor", "half_up", "half_even"])),
        bias_kind=bias_kind,
        m_kind=m_kind,
        s_kind=s_kind,
        mult=P.as_array(
            data.draw(st.lists(mult, min_size=[0, 1, n][m_kind], max_size=[0, 1, n][m_kind]))
        ),
        shift=P.as_array(
            data.draw(st.lists(shift, min_size=[1, 1, n][s_kind], max_size=[1, 1, n][s_kind]))
        ),
        bias=P.as_array(
            data.draw(
                st.lists(
                    bias,
                    min_size=0 if bias_kind == "none" else n,
                    max_size=0 if bias_kind == "none" else n,
                )
            )
        ),
    )
    fast, sat = _hulls_i64(ts, rq, n), Sat()
    slow = _hulls(sat, ts, rq, n)
    assert fast is not None or not small
    assert fast is None or (fast == slow and not sat.hit)


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data())
def test_the_partial_sums_of_many_channels_at_once_equal_them_channel_by_channel(data):
    # the int64 path must give the loop's integers wherever it takes a case, and take every
    # case whose values fit with room (input ends and sums to 2^28, biases to 2^40)
    from waiexport.bounds.interval import Sat, hull
    from waiexport.bounds.linear import _accs_i64, partial_sums

    small = data.draw(st.booleans())
    n, groups, taps = (
        data.draw(st.integers(16, 40)),
        data.draw(st.integers(1, 4)),
        data.draw(st.integers(0, 64)),
    )
    wmax = data.draw(st.integers(0, 1 << 16) if small else _magnitudes(62).map(abs))
    end, bias = (
        (_magnitudes(28), _magnitudes(40))
        if small
        else (st.just(0) | _magnitudes(70), st.integers(-(1 << 63), (1 << 63) - 1))
    )
    sums = [
        (
            data.draw(st.lists(st.integers(0, taps * wmax), min_size=n, max_size=n)),
            data.draw(st.lists(st.integers(-taps * wmax, 0), min_size=n, max_size=n)),
        )
        for _ in range(groups)
    ]
    iv = tuple(sorted(data.draw(st.tuples(end, end))))
    bias_kind = data.draw(st.sampled_from(["none", "pre", "post"]))
    rq = P.RQ(
        bias_kind=bias_kind,
        bias=P.as_array(
            data.draw(
                st.lists(
                    bias,
                    min_size=0 if bias_kind == "none" else n,
                    max_size=0 if bias_kind == "none" else n,
                )
            )
        ),
    )
    fast, sat = _accs_i64(sums, iv, rq, taps, wmax), Sat()
    slow = [
        hull(*(partial_sums(sat, iv, pos[o], neg[o], rq.pre_bias(o), wmax) for pos, neg in sums))
        for o in range(n)
    ]
    assert fast is not None or not small
    assert fast is None or (fast == slow and not sat.hit)


def test_a_conv_of_zero_weights_on_an_input_past_i64_is_certified_by_the_loop():
    # with every weight 0 the int64 path's bound on the ends says nothing of the input's,
    # which pass int64 here (a sum of sums of inputs 2^62 wide): in int64 they overflowed
    b = GraphBuilder()
    x = b.input(4, -(1 << 62), 1 << 62)
    twice = b.op("add", [x, x])
    b.output(
        b.op(
            "conv",
            b.op("add", [twice, twice]),
            conv(np.zeros((32, 4, 3, 3), np.int64), pad=1, rq=rq()),
        )
    )
    acc = certify_graph(b.build()).nodes[2].result.intermediates["conv.acc"]
    assert acc == (0, 0)


def test_partial_sums_past_i64_on_an_input_of_zeros_are_left_to_the_loop():
    # every end is the bias alone, but the sums themselves do not fit int64
    from waiexport.bounds.linear import _accs_i64

    assert _accs_i64([([1 << 66] * 16, [-(1 << 66)] * 16)], (0, 0), P.RQ(), 1, 1 << 66) is None


def test_rq_rules_of_ends_past_i64_times_a_zero_multiplier():
    # t·m = 0 fits, but the ends themselves do not fit int64: the loop takes them
    from waiexport.bounds.interval import Sat
    from waiexport.bounds.requant import rq_rules

    rq = P.RQ(m_kind=1, mult=P.as_array([0]), shift=P.as_array([3]))
    assert rq_rules(Sat(), [(-(1 << 70), 1 << 70)] * 20, rq)[1] == (0, 0)
