"""The run-time plan (§4 run steps 1–3): shapes, and every refusal in §4's order."""

import numpy as np
import pytest

from waiexport import params as P
from waiexport.builder import GraphBuilder, conv, conv_transpose, crop
from waiexport.capabilities.examples import tiny_synth
from waiexport.plan import run_plan

from _helpers import refused


def test_conv_transpose_stack_shapes():
    # k4 s2 p1: (16 − 1)·2 + 4 − 2 = 32; k5 s2 p2 op1: (32 − 1)·2 + 5 + 1 − 4 = 64 (§5.3).
    g = tiny_synth()
    shapes = run_plan(g, [(8, 16, 16)], [])
    assert [shapes[t] for t in range(5)] == [
        (8, 16, 16),
        (6, 32, 32),
        (6, 32, 32),
        (3, 64, 64),
        (3, 64, 64),
    ]
    assert run_plan(g, [(8, 1, 3)], [])[4] == (3, 4, 12)


def test_conv_shapes_with_stride_and_padding():
    # §5.2: Ho = ⌊(7 + 2·1 − 3) / 2⌋ + 1 = 4; Wo = ⌊(5 + 0 − 2) / 3⌋ + 1 = 2.
    b = GraphBuilder()
    x = b.input(2, -1, 1)
    b.output(
        b.op(
            "conv",
            x,
            P.Conv(4, 3, 2, 2, 3, 1, 0, 2, 1, P.RQ(), P.as_array(np.ones((4, 1, 3, 2), dtype=int))),
        )
    )
    assert run_plan(b.build(), [(2, 7, 5)], [])[1] == (4, 4, 2)


def _two_inputs(op="add", params=None, max_h=8):
    b = GraphBuilder()
    b.scalar(-4, 4)
    xs = [b.input(2, -5, 5, max_h=max_h, max_w=max_h) for _ in range(2)]
    b.output(b.op(op, xs, params))
    return b.build()


def test_step1_channel_count_then_sizes_input_by_input():
    g = _two_inputs()
    refused(lambda: run_plan(g, [(3, 4, 4), (2, 4, 4)], [0]), "model_mismatch", "input 0")
    refused(lambda: run_plan(g, [(2, 0, 4), (2, 4, 4)], [0]), "model_mismatch", "input 0")
    refused(
        lambda: run_plan(g, [(2, 9, 4), (2, 4, 4)], [0]),
        "too_large",
        "input 0: 9×4 passes the declared 8×8",
    )
    # input 0 too large is found before input 1's wrong channel count
    refused(lambda: run_plan(g, [(2, 9, 4), (5, 4, 4)], [0]), "too_large", "input 0")
    refused(lambda: run_plan(g, [(2, 4, 4), (5, 4, 4)], [0]), "model_mismatch", "input 1")


def test_step1_max_elems():
    b = GraphBuilder(max_elems=50)
    b.output(b.op("relu", b.input(2, -5, 5)))
    refused(lambda: run_plan(b.build(), [(2, 5, 6)], []), "too_large", "passes max_elems 50")


def test_step2_scalars_after_inputs():
    g = _two_inputs()
    refused(
        lambda: run_plan(g, [(2, 4, 4), (2, 4, 4)], [5]),
        "field_range",
        "scalar 0: 5 is outside [-4, 4]",
    )
    refused(lambda: run_plan(g, [(2, 4, 4), (2, 4, 4)], [-5]), "field_range", "scalar 0")
    refused(lambda: run_plan(g, [(2, 9, 4), (2, 4, 4)], [5]), "too_large", "input 0")
    assert run_plan(g, [(2, 4, 4), (2, 4, 4)], [4])[2] == (2, 4, 4)


def test_step3_add_of_mismatched_sizes():
    refused(
        lambda: run_plan(_two_inputs(), [(2, 4, 4), (2, 4, 5)], [0]),
        "geometry_mismatch",
        "operands [2, 4, 4] and [2, 4, 5] differ",
    )


def test_step3_divisibility_that_holds_only_at_the_declared_size():
    b = GraphBuilder()
    b.output(b.op("pixel_unshuffle", b.input(1, -5, 5, max_h=8, max_w=8), P.Factor(2)))
    g = b.build()
    assert run_plan(g, [(1, 8, 6)], [])[1] == (4, 4, 3)
    refused(
        lambda: run_plan(g, [(1, 7, 6)], []), "geometry_mismatch", "7×6 is not a multiple of r = 2"
    )


def test_step3_kernel_larger_than_a_small_input():
    b = GraphBuilder()
    b.output(b.op("conv", b.input(1, -5, 5, max_h=8, max_w=8), conv(np.ones((1, 1, 5, 5)))))
    refused(
        lambda: run_plan(b.build(), [(1, 4, 8)], []), "geometry_mismatch", "kernel 5×5 is larger"
    )


@pytest.mark.parametrize("value, ok", [(0, True), (2, True), (3, False), (-1, False)])
def test_step3_crop_from_scalars(value, ok):
    b = GraphBuilder()
    s = b.scalar(-1, 3)
    b.output(b.op("crop", b.input(1, -5, 5, max_h=8, max_w=8), crop(("scalar", s), 1, 6, 7)))
    g = b.build()
    if ok:
        assert run_plan(g, [(1, 8, 8)], [value])[1] == (1, 6, 7)
    else:
        refused(lambda: run_plan(g, [(1, 8, 8)], [value]), "geometry_mismatch", "crop")


def test_step3_caps_before_the_shape_rule():
    # The uncropped side passes 2^26 (too_large) and the output would be empty: caps first.
    b = GraphBuilder()
    x = b.input(1, -5, 5)
    b.output(
        b.op(
            "conv_transpose",
            x,
            P.ConvTranspose(
                1, 1, 1, 2**26, 1, 2**30, 0, 0, 0, 1, P.RQ(), P.as_array(np.ones((1, 1, 1, 1), int))
            ),
        )
    )
    refused(lambda: run_plan(b.build(), [(1, 2, 1)], []), "too_large", "uncropped height")


def test_step3_padded_side_at_run_time():
    b = GraphBuilder()
    b.output(b.op("conv", b.input(1, -5, 5), conv(np.ones((1, 1, 1, 1)), pad=1)))
    refused(lambda: run_plan(b.build(), [(1, 2**26, 1)], []), "too_large", "padded height")


def test_step3_output_past_max_elems():
    b = GraphBuilder(max_elems=200)
    b.output(
        b.op("conv_transpose", b.input(1, -5, 5), conv_transpose(np.ones((1, 2, 2, 2)), stride=2))
    )
    assert run_plan(b.build(), [(1, 5, 5)], [])[1] == (2, 10, 10)
    refused(
        lambda: run_plan(b.build(), [(1, 5, 6)], []),
        "too_large",
        "output 0 [2, 10, 12] passes max_elems 200",
    )


def test_step3_state_whose_shape_no_longer_matches():
    b = GraphBuilder()
    x = b.input(2, -5, 5)
    s = b.state(2, -9, 9, src=0)
    b.output(b.op("add", [x, s], policy="clamp", lo=-9, hi=9))
    g = b.build()
    assert run_plan(g, [(2, 3, 3), (2, 3, 3)], [])[2] == (2, 3, 3)
    refused(lambda: run_plan(g, [(2, 3, 3), (2, 4, 4)], []), "geometry_mismatch", "differ")


def test_counts_of_shapes_and_scalars_must_be_the_graphs():
    with pytest.raises(ValueError):
        run_plan(_two_inputs(), [(2, 4, 4)], [0])


@pytest.mark.parametrize(
    "op, params, shape, out",
    [
        ("pixel_shuffle", P.Factor(2), (8, 3, 5), (2, 6, 10)),
        ("pixel_unshuffle", P.Factor(3), (2, 6, 9), (18, 2, 3)),
        ("pad_rep", P.PadRep(4), (1, 5, 8), (1, 8, 8)),
        ("chunk_add", None, (6, 2, 3), (3, 2, 3)),
        ("split", P.Split(2, 3), (6, 2, 3), (3, 2, 3)),
        ("subpos_split", P.Subpos((0, 1, 2, 3)), (1, 4, 6), (1, 2, 3)),
    ],
)
def test_movement_shapes(op, params, shape, out):
    b = GraphBuilder()
    y = b.op(op, b.input(shape[0], -1, 1), params)
    b.output(*(y if isinstance(y, tuple) else (y,)))
    assert run_plan(b.build(), [shape], [])[1] == out


def test_gram_and_apply_shapes():
    b = GraphBuilder()
    a = b.input(6, -1, 1, max_h=4, max_w=5)
    gm = b.op("gram", [a, a], P.Contraction(3, P.RQ()))
    b.output(b.op("apply", [gm, a], P.Contraction(3, P.RQ())))
    shapes = run_plan(b.build(), [(6, 4, 5)], [])
    assert shapes[1] == (6, 1, 2) and shapes[2] == (6, 4, 5)
