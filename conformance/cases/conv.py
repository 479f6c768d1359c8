"""``conv`` (§5.2) vectors."""

import numpy as np

from waiexport.builder import GraphBuilder, conv, rq

from ._make import Case, covers, one, seeded
from ._ops import basic

W = np.array(
    [
        [[[3, -2, 1], [0, 4, -1], [2, -3, 5]], [[1, 1, -1], [-2, 0, 2], [3, -1, 0]]],
        [[[-1, 2, 0], [1, -1, 1], [0, 2, -2]], [[2, 0, 1], [-3, 1, 0], [1, 1, 1]]],
    ]
)

conv_basic = basic("conv", conv(W, pad=1, stride=(1, 2), rq=rq(shift=3, bias=[5, -5])))


@covers("1:partial-sum-ends")
def conv_partial_sum_ends():
    # Inputs at the end of their range that matches each weight's sign form A(K, b)'s ends.
    w = np.array([[[[3, -2], [1, -4]]]])
    g = one("conv", conv(w, rq=rq(bias=[9])), channels=1, lo=-50, hi=70, size=(2, 2))
    top, bottom = np.where(w[0] > 0, 70, -50), np.where(w[0] > 0, -50, 70)
    return Case(g, [([top], []), ([bottom], [])])


@covers("3:kernel-larger-than-input")
def conv_kernel_larger_than_input():
    g = one("conv", conv(np.ones((1, 1, 5, 5), int), pad=2), channels=1, size=(2, 3))
    return Case(g, [([np.arange(6).reshape(1, 2, 3) - 3], [])])


@covers("3:1x1-plane", "3:stride-gt-kernel")
def conv_1x1_plane():
    g = one("conv", conv(W, pad=1, stride=4), size=(1, 1))
    return Case(g, [([np.array([[[7]], [[-9]]])], [])])


@covers("4:acc32-max", "4:acc32-min")
def conv_acc32_ends():
    # One tap of weight 1 on an i32 range: the sum reaches 2^31 − 1 and −2^31 exactly.
    g = one("conv", conv([[[[1]]]]), channels=1, lo=-(2**31), hi=2**31 - 1)
    return Case(g, [([np.array([[[2**31 - 1, -(2**31)]]])], [])])


@covers("4:acc32-one-past")
def conv_acc32_one_past():
    # A pre bias of 1 takes the sum one past 2^31 − 1: acc64 only.
    g = one("conv", conv([[[[1]]]], rq=rq(bias=[1])), channels=1, lo=-(2**31), hi=2**31 - 1)
    return Case(g, [([np.array([[[2**31 - 1, -(2**31)]]])], [])])


@covers("5:plan:conv")
def conv_plan_kernel_larger_at_run_time():
    g = one("conv", conv(np.ones((1, 2, 3, 3), int)))
    return Case(g, [([np.ones((2, 3, 4), int)], []), ([np.ones((2, 2, 4), int)], [])])


def _near_min(name: str, shape: tuple) -> np.ndarray:
    """int8 values in [−128, −122] (products of nearly 2^14, all positive), seeded."""
    return seeded(name).integers(-128, -121, shape)


@covers("1:float32-sum", "4:float-exposing")
def conv_int8_sum_past_2_24():
    # One int8×int8 kernel sum past 2^24 with its lowest bit set (the centre's 1,152 taps),
    # beside border sums below 2^24: float32 accumulation (a 24-bit significand) gets the
    # centre wrong and the border right. Shift 0, so no rounding hides the lost bit.
    w, x = (
        _near_min("conv_int8_sum_past_2_24", (1, 128, 3, 3)),
        _near_min("conv_int8_sum_past_2_24_x", (128, 3, 3)),
    )
    if int((w[0] * x).sum()) % 2 == 0:
        x[0, 0, 0] += 1
    g = one("conv", conv(w, pad=1), channels=128, lo=-128, hi=127, size=(3, 3))
    return Case(g, [([x], [])])


@covers("1:float32-sum", "4:float-exposing")
def conv_int8_sum_past_2_30():
    # 8,192 channels × 3×3 = 73,728 int8×int8 taps in one kernel's int32 accumulator (the
    # export splits none of them): the sum passes 2^30, still within acc32's 2^31 − 1.
    w, x = (
        _near_min("conv_int8_sum_past_2_30", (1, 8192, 3, 3)),
        _near_min("conv_int8_sum_past_2_30_x", (8192, 3, 3)),
    )
    g = one("conv", conv(w), channels=8192, lo=-128, hi=127, size=(3, 3))
    return Case(g, [([x], [])])


def conv_int8_odd_multiplier():
    # The RGB8 output step's multiplier, 255 (§5.1), at shift 10 on int8 operands and an
    # int8 output: every value of the input, so the products reach the requantisation's ties
    # and near-ties of both signs, as an 8-bit NPU rounds them (its scale is no power of two).
    b = GraphBuilder()
    w = np.ones((2, 2, 2, 1), int) * np.array([1, -1]).reshape(2, 1, 1, 1)
    y = b.op(
        "conv",
        b.input(2, -128, 127, max_h=16, max_w=16),
        conv(w, rq=rq(shift=10, mult=255, round="half_up")),
        policy="clamp",
        lo=-128,
        hi=127,
    )
    b.output(y)
    x = np.stack([np.arange(-128, 128).reshape(16, 16), np.zeros((16, 16), int)])
    return Case(b.build(), [([x], [])])


CASES = [
    conv_basic,
    conv_int8_odd_multiplier,
    conv_partial_sum_ends,
    conv_kernel_larger_than_input,
    conv_1x1_plane,
    conv_acc32_ends,
    conv_acc32_one_past,
    conv_plan_kernel_larger_at_run_time,
    conv_int8_sum_past_2_24,
    conv_int8_sum_past_2_30,
]
