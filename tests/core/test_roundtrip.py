"""WHG1 round trips: ``read(write(g)) == g`` and ``write(read(b)) == b`` (§10, §10.4)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waiexport import params as P
from waiexport import read, write
from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
from waiexport.optable import BY_NAME

from _helpers import every_op_graph, examples, op_offsets


def test_every_operator_round_trips():
    g = every_op_graph()
    assert {op.name for op in g.ops} == set(BY_NAME)
    data = write(g)
    again = read(data)
    assert again == g
    assert write(again) == data


def test_round_trip_changes_no_byte_of_any_operator_record():
    data = write(every_op_graph(seed=3))
    offs = op_offsets(data) + [len(data)]
    again = write(read(data))
    for a, b in zip(offs, offs[1:]):
        assert again[a:b] == data[a:b]


RQ_LAYOUTS = list(
    itertools.product(
        ("floor", "half_up", "half_even"),  # round
        (None, 1, 2),  # m_kind 0 / 1 / 2
        (4, 8),  # m_bytes
        (1, 2),  # s_kind
        ("none", "pre", "post"),  # bias
        (4, 8),  # b_bytes
    )
)


@pytest.mark.parametrize("rnd, m_kind, m_bytes, s_kind, bias, b_bytes", RQ_LAYOUTS)
def test_every_rq_layout_round_trips(rnd, m_kind, m_bytes, s_kind, bias, b_bytes):
    c = 3
    mult = None if m_kind is None else (-(2**31) if m_kind == 1 else [5, -7, 2**31 - 1])
    layout = rq(
        shift=127 if s_kind == 1 else [0, 63, 127],
        mult=mult,
        bias=None if bias == "none" else [-(2**31), 0, 2**31 - 1],
        bias_kind=bias,
        round=rnd,
        m_bytes=m_bytes,
        b_bytes=b_bytes,
    )
    b = GraphBuilder()
    x = b.input(c, -3, 3)
    b.output(b.op("rescale", x, P.Rescale(layout)))
    g = b.build()
    got = g.ops[0].params.rq
    assert (got.round, got.bias_kind, got.m_kind, got.s_kind) == (
        rnd,
        bias,
        0 if m_kind is None else m_kind,
        s_kind,
    )
    assert got.m_bytes == (0 if m_kind is None else m_bytes)
    assert got.b_bytes == (0 if bias == "none" else b_bytes)
    assert got == layout
    assert write(read(write(g))) == write(g)


@pytest.mark.parametrize("w_bytes", [1, 2, 4, 8])
@pytest.mark.parametrize("transpose", [False, True])
def test_every_weight_width_round_trips(w_bytes, transpose):
    lim = 1 << (8 * w_bytes - 1)
    w = np.array([-lim, lim - 1, 0, 1, -1, 7, -8, lim // 2], dtype=np.int64).reshape(2, 1, 2, 2)
    b = GraphBuilder()
    x = b.input(2 if transpose else 1, -3, 3)
    params = (
        conv_transpose(w, w_bytes=w_bytes, rq=rq(shift=1))
        if transpose
        else conv(w, w_bytes=w_bytes, rq=rq(shift=1))
    )
    b.output(b.op("conv_transpose" if transpose else "conv", x, params))
    g = b.build()
    assert g.ops[0].params.w_bytes == w_bytes
    np.testing.assert_array_equal(g.ops[0].params.weights, w)
    assert write(read(write(g))) == write(g)


def test_weight_too_wide_for_its_width_is_not_written():
    b = GraphBuilder()
    b.output(b.op("conv", b.input(1, 0, 1), conv(np.array([[[[128]]]]), w_bytes=1)))
    with pytest.raises(ValueError, match="does not fit 1 bytes"):
        write(b.graph())


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_random_rq_round_trip(data):
    c = data.draw(st.integers(1, 5))
    i64 = st.integers(-(2**63), 2**63 - 1)
    m_kind = data.draw(st.sampled_from([0, 1, 2]))
    mult = [None, data.draw(i64), data.draw(st.lists(i64, min_size=c, max_size=c))][m_kind]
    s_kind = data.draw(st.sampled_from([1, 2]))
    shift = (
        data.draw(st.integers(0, 127))
        if s_kind == 1
        else data.draw(st.lists(st.integers(0, 127), min_size=c, max_size=c))
    )
    bias_kind = data.draw(st.sampled_from(["none", "pre", "post"]))
    bias = None if bias_kind == "none" else data.draw(st.lists(i64, min_size=c, max_size=c))
    layout = rq(
        shift=shift,
        mult=mult,
        bias=bias,
        bias_kind=bias_kind,
        round=data.draw(st.sampled_from(P.ROUNDS)),
    )
    b = GraphBuilder()
    b.output(b.op("rescale", b.input(c, -1, 1), P.Rescale(layout)))
    g = b.build()
    assert g.ops[0].params.rq == layout
    assert read(write(g)) == g
