"""``conv_transpose`` (§5.3) vectors."""

import numpy as np

from waiexport.builder import GraphBuilder, conv_transpose, rq

from ._make import Case, covers, one
from ._ops import basic

W = np.array([[[[1, -2, 3], [0, 1, -1], [2, 0, -3]]], [[[-1, 1, 2], [3, -2, 0], [1, 1, 1]]]])

conv_transpose_basic = basic(
    "conv_transpose", conv_transpose(W, stride=2, pad=1, out_pad=1, rq=rq(shift=1, bias=[3]))
)


@covers("1:partial-sum-ends")
def conv_transpose_partial_sum_ends():
    # k2 s2: each output position reads one tap; inputs at the range end of the tap's sign.
    w = np.array([[[[5, -3], [2, -7]]]])
    g = one(
        "conv_transpose",
        conv_transpose(w, stride=2, rq=rq(bias=[-4])),
        channels=1,
        lo=-20,
        hi=30,
        size=(1, 1),
    )
    return Case(g, [([np.array([[[30]]])], []), ([np.array([[[-20]]])], [])])


@covers("3:output-padding-ge-stride", "3:odd-sizes")
def conv_transpose_output_padding_past_stride():
    g = one("conv_transpose", conv_transpose(W, stride=2, out_pad=3, rq=rq(bias=[7])), size=(2, 3))
    return Case(g, [([np.arange(12).reshape(2, 2, 3) - 6], [])])


@covers("3:stride-gt-kernel")
def conv_transpose_stride_past_kernel():
    # Stride 3 over a 2×2 kernel: positions no tap reaches hold rq(0) = the bias, shifted.
    g = one(
        "conv_transpose",
        conv_transpose(np.ones((2, 1, 2, 2), int), stride=3, rq=rq(shift=1, bias=[9])),
        size=(2, 2),
    )
    return Case(g, [([np.arange(8).reshape(2, 2, 2)], [])])


@covers("3:kernel-larger-than-input", "3:1x1-plane")
def conv_transpose_kernel_larger_than_input():
    g = one(
        "conv_transpose",
        conv_transpose(np.arange(50).reshape(2, 1, 5, 5) % 7 - 3, stride=2, pad=1),
        size=(1, 1),
    )
    return Case(g, [([np.array([[[9]], [[-4]]])], [])])


@covers("5:plan:conv_transpose")
def conv_transpose_plan_empty_output():
    # k2 s2 p2: Ho = (H − 1)·2 + 2 − 4 is 2 for H = 3 and −2 for H = 1.
    g = one("conv_transpose", conv_transpose(np.ones((2, 1, 2, 2), int), stride=2, pad=2))
    return Case(g, [([np.ones((2, 3, 3), int)], []), ([np.ones((2, 1, 3), int)], [])])


def conv_transpose_check_past_8_bits():
    # A check range inside an int8 over sums past it (acc64 only): the host checks the sums as
    # the operator forms them, so an 8-bit move of them wraps 256 and −512 to 0 and 255 to −1,
    # inside the range, where each decode must refuse; 5 passes. k2 s2 p2 keeps the operator
    # from the phase rewrite.
    b = GraphBuilder()
    b.output(
        b.op(
            "conv_transpose",
            b.input(1, -1000, 1000),
            conv_transpose(np.ones((1, 1, 2, 2), int), stride=2, pad=2),
            policy="check",
            lo=-10,
            hi=10,
        )
    )
    return Case(b.build(), [([np.full((1, 3, 3), v)], []) for v in (5, 256, -512, 255)])


CASES = [
    conv_transpose_basic,
    conv_transpose_partial_sum_ends,
    conv_transpose_output_padding_past_stride,
    conv_transpose_stride_past_kernel,
    conv_transpose_kernel_larger_than_input,
    conv_transpose_plan_empty_output,
    conv_transpose_check_past_8_bits,
]
