"""A decode (§4 run steps 1–4): input policies, ``check`` tensors mid-graph, the order of
refusals, and state carried across a sequence (§10.3)."""

import numpy as np

from waiexport import params as P
from waiexport.builder import GraphBuilder, rq
from waiexport.reference import Decoder, decode

from _helpers import accumulator, refused


def test_clamp_input_is_clamped_and_check_input_refuses():
    b = GraphBuilder()
    x = b.input(1, -3, 3, policy="clamp")
    z = b.input(1, -3, 3, policy="check")
    b.output(b.op("add", [x, z]))
    g = b.build()
    out = decode(g, [np.array([[[-9, 9]]]), np.array([[[1, -3]]])], [])
    assert out[0].tolist() == [[[-2, 0]]]
    refused(
        lambda: decode(g, [np.array([[[0, 0]]]), np.array([[[4, 0]]])], []),
        "field_range",
        "input 1: 4 is outside [-3, 3]",
    )


def test_check_tensor_mid_graph_refuses_and_nothing_after_runs():
    b = GraphBuilder()
    x = b.input(1, -100, 100)
    y = b.op("rescale", x, P.Rescale(rq(shift=1)), policy="check", lo=-10, hi=10)
    b.output(b.op("relu", y))
    g = b.build()
    assert decode(g, [np.array([[[20, -20]]])], [])[0].tolist() == [[[10, 0]]]
    refused(
        lambda: decode(g, [np.array([[[22, 0]]])], []),
        "field_range",
        "operator 0 (rescale) output 0: 11 is outside [-10, 10]",
    )


def test_plan_refusals_come_before_input_values():
    b = GraphBuilder()
    x = b.input(1, -3, 3, max_h=2, max_w=2)
    b.output(b.op("relu", x))
    g = b.build()
    # The input is too large and out of range: step 1 (too_large) comes before step 4.
    refused(lambda: decode(g, [np.full((1, 3, 2), 9)], []), "too_large", "input 0")
    refused(lambda: decode(g, [np.full((1, 2, 2), 9)], []), "field_range", "input 0")


def test_scalar_range_and_crop_that_does_not_fit():
    b = GraphBuilder()
    s = b.scalar(0, 4)
    x = b.input(1, -3, 3, max_h=4, max_w=4)
    b.output(
        b.op("crop", x, P.Crop(P.Operand(1, s), P.Operand(0, 0), P.Operand(0, 2), P.Operand(0, 2)))
    )
    g = b.build()
    x = np.arange(16).reshape(1, 4, 4) % 7 - 3
    assert decode(g, [x], [2])[0].tolist() == x[:, 2:4, 0:2].tolist()
    refused(lambda: decode(g, [x], [5]), "field_range", "scalar 0")
    refused(lambda: decode(g, [x], [3]), "geometry_mismatch", "passes the input 4×4")


def test_state_across_three_decodes_with_a_refused_one_between():
    d = Decoder(accumulator())
    first = d.step([np.array([[[1, 2]]])], [])
    assert first[0].tolist() == [[[4, 5]]]  # init 3 over input 0's 1×2
    refused(lambda: d.step([np.array([[[11, 0]]])], []), "field_range", "input 0")
    third = d.step([np.array([[[2, -2]]])], [])
    assert third[0].tolist() == [[[6, 3]]]  # as if the refused one never ran


def test_state_starts_over_input_0s_size_and_must_keep_it():
    d = Decoder(accumulator())
    assert d.step([np.zeros((1, 2, 3), int)], [])[0].tolist() == [[[3, 3, 3], [3, 3, 3]]]
    refused(lambda: d.step([np.zeros((1, 3, 3), int)], []), "geometry_mismatch", "differ")
    assert d.step([np.ones((1, 2, 3), int)], [])[0].tolist() == [[[4, 4, 4], [4, 4, 4]]]


def test_state_output_policy_is_what_carries():
    d = Decoder(accumulator())
    for _ in range(6):
        out = d.step([np.array([[[10]]])], [])
    assert out[0].tolist() == [[[50]]]  # 3 + 6·10 = 63, clamped each time


def test_literal_and_vectorised_sequences_agree():
    lit = Decoder(accumulator(), engine=lambda g, i, s: decode(g, i, s, literal=True))
    vec = Decoder(accumulator())
    for x in ([[[1, -7]]], [[[9, 9]]], [[[-10, 4]]]):
        assert [o.tolist() for o in lit.step([np.array(x)], [])] == [
            o.tolist() for o in vec.step([np.array(x)], [])
        ]
