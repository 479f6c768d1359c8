"""Each rewrite is exact (the reference before and after agree bit for bit on random graphs
meeting its precondition), declines with a reason outside it, and the pipeline keeps acc32."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiexport import Refusal, read, write
from waiexport import params as P
from waiexport.builder import GraphBuilder, chscale, conv, conv_transpose, lut16, rq
from waiexport.descriptions import target
from waiexport.reference import decode
from waiexport.rewrites.floor_to_half_up import FloorToHalfUp
from waiexport.rewrites.manager import rewrite_for
from waiexport.rewrites.negative_multiplier import NegativeMultiplier
from waiexport.rewrites.phase_conv import PhaseConvolution
from waiexport.rewrites.post_bias import PostToPreBias
from waiexport.rewrites.shift_range import ShiftRange

from _helpers import examples

NPU = target("npu-int8")
SETTINGS = dict(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def rewritten(rule, g, tgt=NPU, k=0):
    """``g`` with ``rule`` applied to operator ``k``, written and read back (it must load)."""
    work = g.copy()
    op = work.ops[k]
    assert rule.needed(op, tgt)
    assert rule.check(op, work, tgt) is None, rule.check(op, work, tgt)
    rule.apply(op, work, tgt)
    return read(write(work.renumbered()))


def same_outputs(g, h, inputs, scalars=()):
    try:
        want = [o.astype(object).tolist() for o in decode(g, inputs, list(scalars))]
    except Refusal as r:
        with pytest.raises(Refusal) as info:
            decode(h, inputs, list(scalars))
        assert info.value.code == r.code
        return
    got = [o.astype(object).tolist() for o in decode(h, inputs, list(scalars))]
    assert got == want


def one_op(name, params, c=2, lo=-50, hi=50):
    b = GraphBuilder()
    b.output(b.op(name, b.input(c, lo, hi), params))
    return b.build()


def data(draw, shape, lo=-50, hi=50):
    n = int(np.prod(shape))
    return np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))).reshape(shape)


# --- phase convolutions (§9.3) ----------------------------------------------------------------


@st.composite
def phase_case(draw):
    s = draw(st.integers(1, 3))
    k = draw(st.integers(1, 7))
    p = draw(st.integers(0, 4))
    op = s - k + 2 * p
    if op < 0:
        p = draw(st.integers(-(-(k - s) // 2), 4))
        op = s - k + 2 * p
    cin, cout = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    w = data(draw, (cin, cout, k, k), -20, 20)
    layout = rq(
        shift=draw(st.sampled_from([0, 3, [1] * cout])),
        bias=data(draw, (cout,), -9, 9),
        round=draw(st.sampled_from(P.ROUNDS)),
    )
    g = one_op("conv_transpose", conv_transpose(w, stride=s, pad=p, out_pad=op, rq=layout), cin)
    h, w_ = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return g, data(draw, (cin, h, w_))


@settings(**SETTINGS)
@given(phase_case())
def test_phase_convolutions_are_exact(case):
    g, x = case
    h = rewritten(PhaseConvolution(), g)
    assert [op.name for op in h.ops] in (["conv", "pixel_shuffle"], ["conv"])
    same_outputs(g, h, [x])


@pytest.mark.parametrize(
    "k, s, p, op",
    [
        (1, 2, 0, 1),  # kernel smaller than the stride: positions no tap reaches hold rq_o(0)
        (4, 2, 2, 2),  # output padding ≥ stride
        (1, 2, 2, 5),  # padding larger than the kernel
        (5, 3, 2, 2),  # padding not a multiple of the stride: phases reordered
        (7, 2, 3, 1),
    ],
)
@pytest.mark.parametrize("hw", [(1, 1), (2, 3)])
def test_phase_convolutions_awkward_cases(k, s, p, op, hw):
    rng = np.random.default_rng(k * 100 + s * 10 + p)
    w = rng.integers(-9, 10, (2, 3, k, k))
    g = one_op(
        "conv_transpose",
        conv_transpose(w, stride=s, pad=p, out_pad=op, rq=rq(shift=1, bias=[5, -3, 2])),
    )
    h = rewritten(PhaseConvolution(), g)
    same_outputs(g, h, [rng.integers(-50, 51, (2,) + hw)])


@pytest.mark.parametrize(
    "kw, reason",
    [
        (dict(stride=2, pad=1, out_pad=1), "not exactly the stride times the input"),
        (dict(stride=(2, 1), pad=(1, 0), out_pad=(0, 0)), "strides 2×1 differ"),
    ],
)
def test_phase_convolutions_decline(kw, reason):
    g = one_op("conv_transpose", conv_transpose(np.ones((2, 1, 4, 1), int), **kw))
    assert reason in PhaseConvolution().check(g.ops[0], g, NPU)


# --- post bias → pre bias ---------------------------------------------------------------------


@st.composite
def post_bias_case(draw):
    rnd = draw(st.sampled_from(P.ROUNDS))
    c = draw(st.integers(1, 3))
    m = draw(st.sampled_from([None, 1, -1, 3, -6, 2**20, [2, -4, 8][:c] + [1] * (3 - c)]))
    mults = [1] * c if m is None else ([m] * c if np.ndim(m) == 0 else list(m)[:c])
    s = draw(st.integers(0, 40))
    bias = [mi * draw(st.integers(-99, 99)) * (2 if rnd == "half_even" else 1) for mi in mults]
    layout = rq(
        shift=s,
        mult=m if np.ndim(m) == 0 or m is None else list(m)[:c],
        bias=bias,
        bias_kind="post",
        round=rnd,
    )
    if draw(st.booleans()):
        g = one_op("rescale", P.Rescale(layout), c)
        x = data(draw, (c, 2, 3))
    else:
        g = one_op("conv", conv(data(draw, (c, 2, 2, 2), -9, 9), pad=1, rq=layout), 2)
        x = data(draw, (2, 3, 2))
    return g, x


@settings(**SETTINGS)
@given(post_bias_case())
def test_post_bias_to_pre_bias_is_exact(case):
    g, x = case
    h = rewritten(PostToPreBias(), g)
    assert h.ops[0].params.rq.bias_kind == "pre"
    same_outputs(g, h, [x])


@pytest.mark.parametrize(
    "layout, reason",
    [
        (rq(shift=1, bias=[3, 2], bias_kind="post", round="half_even"), "odd post bias 3"),
        (rq(shift=0, mult=3, bias=[4, 3], bias_kind="post"), "multiplier 3 does not divide"),
        (rq(shift=1, mult=[0, 1], bias=[2, 2], bias_kind="post"), "multiplier 0 does not divide"),
    ],
)
def test_post_bias_declines(layout, reason):
    g = one_op("rescale", P.Rescale(layout))
    assert reason in PostToPreBias().check(g.ops[0], g, NPU)


# --- negative multipliers ---------------------------------------------------------------------


@st.composite
def negative_case(draw):
    cout = draw(st.integers(1, 3))
    w_bytes = draw(st.sampled_from([1, 2]))
    lim = 1 << (8 * w_bytes - 1)
    w = data(draw, (cout, 2, 2, 2), -lim, lim - 1)
    w[0, 0, 0, 0] = -lim  # the weight whose negation needs a wider w_bytes
    mults = [draw(st.integers(-50, 50)) or -1 for _ in range(cout)]
    mults[0] = -abs(mults[0])
    bias = data(draw, (cout,), -999, 999).tolist()
    layout = rq(
        shift=draw(st.integers(0, 20)),
        mult=mults if cout > 1 else mults[0],
        bias=bias,
        bias_kind=draw(st.sampled_from(["pre", "post"])),
        round=draw(st.sampled_from(P.ROUNDS)),
    )
    if draw(st.booleans()):
        g = one_op("conv", conv(w, pad=1, w_bytes=w_bytes, rq=layout), 2)
    else:
        g = one_op(
            "conv_transpose",
            conv_transpose(w.transpose(1, 0, 2, 3), stride=2, w_bytes=w_bytes, rq=layout),
            2,
        )
    return g, data(draw, (2, 3, 2))


@settings(**SETTINGS)
@given(negative_case())
def test_negative_multiplier_is_exact(case):
    g, x = case
    h = rewritten(NegativeMultiplier(), g)
    assert int(h.ops[0].params.rq.mult.min()) >= 0
    assert h.ops[0].params.w_bytes == 2 * g.ops[0].params.w_bytes  # −2^(8w−1) widened
    same_outputs(g, h, [x])


def test_negative_multiplier_of_minus_2_31_leaves_acc32_and_is_not_applied():
    g = one_op("conv", conv([[[[1]], [[2]]]], rq=rq(shift=40, mult=-(2**31))), lo=-5, hi=5)
    outcome = rewrite_for(g, NPU)
    [change] = [c for c in outcome.changes if c.rewrite.startswith("negative")]
    assert not change.applied and "out of acc32" in change.reason
    assert outcome.after["verdict"]["acc32"]


# --- shift range ------------------------------------------------------------------------------


@st.composite
def shift_case(draw):
    c = draw(st.integers(1, 3))
    above = draw(st.booleans())
    if above:  # the unit takes 0..31: s = 31 + k with m a multiple of 2^k
        ks = [draw(st.integers(1, 20)) for _ in range(c)]
        mults = [draw(st.integers(-9, 9)) << k for k in ks]
        shifts = [31 + k for k in ks]
        tgt = NPU
    else:  # a unit of shifts 8..31: s < 8 rises while m·2^k fits
        shifts = [draw(st.integers(0, 7)) for _ in range(c)]
        mults = [draw(st.integers(0, 999)) for _ in range(c)]
        tgt = replace(NPU, shift_range=(8, 31))
    layout = rq(shift=shifts, mult=mults, round=draw(st.sampled_from(P.ROUNDS)))
    name = draw(st.sampled_from(["rescale", "mul"]))
    if name == "mul":
        b = GraphBuilder()
        b.output(b.op("mul", [b.input(c, -99, 99), b.input(1, -99, 99)], P.Mul(layout)))
        g = b.build()
        return g, [data(draw, (c, 2, 2), -99, 99), data(draw, (1, 2, 2), -99, 99)], tgt
    return (
        one_op("rescale", P.Rescale(layout), c, -(10**6), 10**6),
        [data(draw, (c, 2, 2), -(10**6), 10**6)],
        tgt,
    )


@settings(**SETTINGS)
@given(shift_case())
def test_shift_rescaling_is_exact(case):
    g, xs, tgt = case
    h = rewritten(ShiftRange(), g, tgt)
    lo, hi = tgt.shift_range
    assert lo <= int(h.ops[0].params.rq.shift.min()) and int(h.ops[0].params.rq.shift.max()) <= hi
    same_outputs(g, h, xs)


def test_shift_above_the_range_needs_a_multiple():
    g = one_op("rescale", P.Rescale(rq(shift=40, mult=3)))
    assert "m = 3 is not a multiple of 2^9" in ShiftRange().check(g.ops[0], g, NPU)
    g = one_op("rescale", P.Rescale(rq(shift=40)))
    assert "m = 1 is not a multiple" in ShiftRange().check(g.ops[0], g, NPU)


# --- floor → half_up --------------------------------------------------------------------------


@st.composite
def floor_case(draw):
    c = draw(st.integers(1, 3))
    shift = draw(st.sampled_from([0, 1, 2, 31, [0, 5, 40][:c] + [1] * (3 - c)]))
    shift = shift if np.ndim(shift) == 0 else list(shift)[:c]
    bias = None if draw(st.booleans()) else data(draw, (c,), -999, 999).tolist()
    layout = rq(shift=shift, bias=bias)
    if draw(st.booleans()):
        return one_op("rescale", P.Rescale(layout), c, -(10**6), 10**6), data(
            draw, (c, 3, 2), -(10**6), 10**6
        )
    return one_op("conv", conv(data(draw, (c, 2, 1, 2), -9, 9), rq=layout), 2), data(
        draw, (2, 2, 3)
    )


@settings(**SETTINGS)
@given(floor_case())
def test_floor_to_half_up_is_exact(case):
    g, x = case
    h = rewritten(FloorToHalfUp(), g)
    assert h.ops[0].params.rq.round == "half_up"
    same_outputs(g, h, [x])


def test_floor_to_half_up_declines_a_multiplier():
    g = one_op("rescale", P.Rescale(rq(shift=3, mult=5)))
    assert "rq_floor_mult" in FloorToHalfUp().check(g.ops[0], g, NPU)


# --- the pipeline -------------------------------------------------------------------------------


def every_flag_graph():
    """Every flag of §9.2, acc32, with 8-bit MAC operands, plus pixel_shuffle and pad_rep."""
    b = GraphBuilder()
    s = b.scalar(0, 1)
    x = b.input(2, -100, 100, max_h=4, max_w=4)
    st_in = b.state(2, -100, 100, src=1, init=0, max_h=4, max_w=4)
    w = np.array([[[[1, -2], [3, 1]], [[0, 1], [-1, 2]]]] * 2)
    a = b.op(
        "conv",
        x,
        conv(
            w,
            pad=1,
            rq=rq(
                shift=2,
                mult=[3, 6],
                bias=[6, -12],  # 0
                bias_kind="post",
                round="half_up",
            ),
        ),
        policy="clamp",
        lo=-128,
        hi=127,
    )
    a = b.op(
        "conv",
        a,
        conv(w, rq=rq(shift=1, mult=-2, bias=[4, 2], round="half_up")),  # 1
        policy="clamp",
        lo=-128,
        hi=127,
    )
    a = b.op(
        "conv",
        a,
        conv(w, pad=1, rq=rq(shift=40, mult=3 << 12, round="half_up")),  # 2
        policy="clamp",
        lo=-128,
        hi=127,
    )
    a = b.op(
        "conv_transpose",
        a,
        conv_transpose(
            np.ones((2, 2, 4, 4), int),
            stride=2,  # 3
            pad=1,
            rq=rq(shift=4, bias=[1, 2]),
        ),
        policy="clamp",
        lo=-128,
        hi=127,
    )
    b.op("rescale", a, P.Rescale(rq(shift=3, mult=5)))  # 5 floor_mult
    b.op("rescale", a, P.Rescale(rq(shift=3, mult=5, round="half_even")))  # 6 half_even
    b.op("rescale", a, P.Rescale(rq(shift=3, mult=-5, round="half_up")))  # 7 neg, rescale
    b.op("mul", [a, a], P.Mul(rq(shift=3, round="floor")))  # 8 floor on mul
    b.op("chscale", a, chscale(s, [[1, 2], [3, 4]], shift=2, round="half_up"))  # 9
    b.op("lut16", a, lut16(np.zeros(65536, int)))  # 10
    b.op("pad_rep", a, P.PadRep(3))  # 11
    acc = b.op("add", [x, st_in], policy="clamp", lo=-100, hi=100)  # 12 state_add
    b.output(a, acc)
    return b.build()


def test_every_flag_rewritten_for_npu_int8():
    g = every_flag_graph()
    outcome = rewrite_for(g, NPU)
    applied = {(c.node, c.rewrite) for c in outcome.changes if c.applied}
    assert applied == {
        (0, "post bias → pre bias"),
        (1, "negative multiplier → positive"),
        (2, "shift rescaling"),
        (3, "transposed convolution → phase convolutions"),
        (3, "floor → half_up"),
    }
    assert outcome.after["verdict"]["acc32"]
    left = {(op, tuple(map(str, lim))) for _, op, lim in outcome.remaining}
    half_up = "the unit rounds half_up"
    assert left == {
        (
            "pixel_shuffle",
            (
                "depth-to-space reads (i·r + j)·C′ + c: a target mapping folds the "
                "permutation into the producer's channels (§9.4)",
            ),
        ),
        ("rescale", (f"rounding floor with a multiplier; {half_up}",)),
        ("rescale", (f"rounding half_even; {half_up}",)),
        ("rescale", ("multiplier -5 outside 0..2147483647",)),
        ("mul", (f"rounding floor; {half_up}",)),
        ("chscale", ("no multiplier row chosen at run time: a unit must support it",)),
        ("lut16", ("no table lookup: a unit must support it",)),
        ("pad_rep", ("no replicate padding: a target mapping builds it from slices (§9.4)",)),
        ("add", ("no value kept across decodes: a unit must support it",)),
    }
    rng = np.random.default_rng(5)
    x = rng.integers(-100, 101, (2, 4, 4))
    st0 = np.zeros((2, 4, 4), int)
    same_outputs(g, outcome.graph, [x, st0], [1])


def test_rewrite_output_is_deterministic_and_canonical():
    g = every_flag_graph()
    a, b = rewrite_for(g, NPU), rewrite_for(g.copy(), NPU)
    assert a.data == b.data
    assert write(read(a.data)) == a.data
    order = [i.tensor for i in a.graph.inputs] + [t for op in a.graph.ops for t in op.outputs]
    assert order == list(range(len(order)))
