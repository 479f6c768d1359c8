"""onnxruntime as a conforming ``acc32`` fabric: the lowerings past the npu subset (grouped
``conv``, ``igdn``, ``gram``, ``apply``, ``crop`` with scalars) bit-exact against the reference
at the ends of their certified intervals."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from waiexport import params as P
from waiexport import write
from waiexport.builder import GraphBuilder, conv, rq
from waiexport.probes import probe_inputs

from _helpers import agree as same
from _helpers import examples, verdict
from _strategies import NARROW, case

PAST_NPU = ["conv", "igdn", "gram", "apply", "crop"]


def _acc32(g) -> bool:
    return verdict(g)["acc32"]


@pytest.mark.parametrize("name", PAST_NPU)
@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_acc32_graph_of_these_operators_is_bit_exact(name, data):
    g, inputs, scalars = data.draw(case(name, NARROW))
    assume(_acc32(g))
    same(write(g), inputs, scalars)
    for probe, probe_scalars in probe_inputs(g):
        same(write(g), probe, probe_scalars)


def _igdn(gamma, beta, gf, frac, lo, hi):
    b = GraphBuilder()
    c = len(beta)
    b.output(
        b.op(
            "igdn",
            b.input(c, lo, hi),
            P.Igdn(
                gf=gf,
                frac=frac,
                g_bytes=4,
                gamma=np.array(gamma).reshape(c, c),
                beta=np.array(beta),
            ),
        )
    )
    return b.build()


def test_igdn_floors_each_term_before_the_sum():
    # γ = 1, x² = 1 and 3 with gf = 1: ⌊1/2⌋ + ⌊9/2⌋ = 4, where ⌊(1 + 9)/2⌋ would be 5
    g = _igdn([1, 1, 1, 1], [0, 0], gf=1, frac=0, lo=-3, hi=3)
    same(write(g), [np.array([[[1, -1, 3]], [[3, -3, 1]]])], [])


@pytest.mark.parametrize("beta", [2**30 - 1, 2**30, 46340**2, 46340**2 - 1, 2**31 - 1])
def test_igdn_isqrt_at_the_top_of_its_interval(beta):
    # N = β alone (x = 0 adds nothing): perfect squares, one below, and the largest values
    g = _igdn([0], [beta], gf=0, frac=0, lo=0, hi=1)
    assert _acc32(g)
    same(write(g), [np.array([[[0, 1]]])], [])


def test_gram_sums_at_the_i32_ends():
    # 2 positions of (±46340)² ≈ 2^31 − 2^20: the sum sits near ±(2^31 − 1)
    m = 32767
    b = GraphBuilder()
    x, y = b.input(1, -m, m, max_h=1, max_w=2), b.input(1, -m, m, max_h=1, max_w=2)
    b.output(b.op("gram", [x, y], P.Contraction(groups=1, rq=rq(shift=0, round="half_up"))))
    g = b.build()
    assert _acc32(g)
    for sign in (1, -1):
        same(write(g), [np.full((1, 1, 2), m), np.full((1, 1, 2), sign * m)], [])


def test_apply_sums_at_the_i32_ends():
    m = 32767
    b = GraphBuilder()
    a, v = b.input(2, -m, m, max_h=1, max_w=2), b.input(2, -m, m, max_h=2, max_w=2)
    b.output(
        b.op("apply", [a, v], P.Contraction(groups=1, rq=rq(shift=1, round="half_up")), channels=2)
    )
    g = b.build()
    assert _acc32(g)
    for sign in (1, -1):
        same(write(g), [np.full((2, 1, 2), m), np.full((2, 2, 2), sign * m)], [])


@pytest.mark.parametrize("groups", [1, 2, 3, 6])
def test_grouped_convolutions_for_every_groups_that_divides(groups):
    rng = np.random.default_rng(groups)
    b = GraphBuilder()
    w = rng.integers(-127, 128, (6, 6 // groups, 3, 3))
    b.output(b.op("conv", b.input(6, -128, 127), conv(w, pad=1, groups=groups, rq=rq(shift=8))))
    g = b.build()
    for probe, scalars in probe_inputs(g):
        same(write(g), probe, scalars)


def test_crop_with_scalars_at_the_ends_of_their_ranges():
    b = GraphBuilder()
    y0, h = b.scalar(0, 3), b.scalar(1, 4)
    b.output(
        b.op(
            "crop",
            b.input(1, -9, 9),
            P.Crop(
                y0=P.Operand(kind=1, value=y0),
                x0=P.Operand(kind=0, value=1),
                h=P.Operand(kind=1, value=h),
                w=P.Operand(kind=0, value=2),
            ),
        )
    )
    g = b.build()
    x = np.arange(20).reshape(1, 4, 5) % 19 - 9
    for scalars in ([0, 1], [3, 1], [0, 4], [3, 4], [2, 2]):
        same(write(g), [x], scalars)
