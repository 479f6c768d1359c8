"""Graph vectors (§14.2): several operators, state, and a refusal at every load check (§10.5)
and at every run step (§4)."""

import struct

import numpy as np

from waiexport import params as P
from waiexport.builder import GraphBuilder, conv_transpose, rq
from waiexport.rewrites.phase_conv import PhaseConvolution
from waiexport.descriptions import target
from waiexport.whg1 import write

from ._make import Case, covers
from ._ops import named


def _synth():
    b = GraphBuilder()
    x = b.input(2, -128, 127)
    w = np.arange(96).reshape(2, 3, 4, 4) % 11 - 5
    y = b.op(
        "conv_transpose", x, conv_transpose(w, stride=2, pad=1, rq=rq(shift=2, bias=[3, -1, 0]))
    )
    b.output(b.op("clamp", b.op("relu", y), P.Clamp(0, 255)))
    return b.build()


SYNTH_INPUTS = [
    ([np.arange(30).reshape(2, 3, 5) * 9 % 256 - 128], []),
    ([np.full((2, 1, 1), 127)], []),
    ([np.full((2, 2, 4), -128)], []),
]


@covers("g:phase-form")
def graph_conv_transpose():
    return Case(_synth(), SYNTH_INPUTS)


@covers("g:phase-form")
def graph_phase_form():
    # The same layer as stride-1 phase convolutions interleaved by pixel_shuffle (§9.3): the
    # expectations equal graph_conv_transpose's.
    g = _synth()
    op = g.ops[0]
    PhaseConvolution().apply(op, g, target("ort-cpu"))
    return Case(g.renumbered(), SYNTH_INPUTS)


@covers("g:state-three")
def graph_state_three_decodes():
    b = GraphBuilder()
    x = b.input(1, -10, 10)
    s = b.state(1, -50, 50, src=0, init=3)
    b.output(b.op("add", [x, s], policy="clamp", lo=-50, hi=50))
    one = np.array([[[1, -2, 4]]])
    return Case(b.build(), [([one], []), ([one * 10], []), ([one * 2], [])])


def _small():
    b = GraphBuilder()
    b.scalar(0, 3)
    x = b.input(4, -100, 100, max_h=4, max_w=4)
    y = b.op("rescale", x, P.Rescale(rq(shift=1)))
    b.output(b.op("pixel_shuffle", y, P.Factor(2)))
    return write(b.build())


def _patch(data: bytes, off: int, fmt: str, value) -> bytes:
    buf = bytearray(data)
    struct.pack_into("<" + fmt, buf, off, value)
    return bytes(buf)


_TENSORS = 32 + 16 + 32 + 4  # _small(): header, 1 scalar, 1 input, 1 output
_OPS = _TENSORS + 24 * 3  # then 3 tensor records, then the operator records


def _derived_input(d: bytes) -> bytes:
    """Input 0's tensor made ``derived`` (a valid record, a broken graph rule)."""
    d = _patch(d, _TENSORS + 5, "B", 0)
    return _patch(_patch(d, _TENSORS + 8, "q", 0), _TENSORS + 16, "q", 0)


LOAD_STEPS = {
    1: lambda d: b"WHG2" + d[4:],  # the magic
    2: lambda d: _patch(d, 22, "H", 1),  # a reserved header field
    3: lambda d: _patch(d, 8, "I", 2**32 - 1),  # n_tensors past the file
    4: lambda d: _patch(d, _TENSORS + 5, "B", 3),  # tensor 0's policy 3
    5: lambda d: _patch(d, _OPS + 16, "B", 3),  # the rescale's round = 3
    6: _derived_input,  # a graph input derived
    7: lambda d: _patch(d, _TENSORS + 24 * 2, "I", 2),  # output channels 2, not 1
}


def _load_refusal(step: int):
    def case():
        return Case(LOAD_STEPS[step](_small()))

    return covers(f"g:load:{step}")(named(f"graph_load_refused_at_step_{step}", case))


@covers("g:load:8")
def graph_load_refused_at_step_8():
    # The bounds pass: a check range the producer can never reach (§8.1).
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -9, -1), policy="check", lo=1, hi=5))
    return Case(write(b.graph()))


@covers("g:run:1", "g:run:2", "g:run:3", "g:run:4")
def graph_refused_at_each_run_step():
    # Step 1: an input past max_h; 2: a scalar past its range; 3: a crop that does not fit
    # its scalars; 4: an input value past its check range. A decode that completes between.
    b = GraphBuilder()
    s = b.scalar(0, 3)
    x = b.input(1, -9, 9, max_h=4, max_w=4)
    b.output(
        b.op("crop", x, P.Crop(P.Operand(1, s), P.Operand(0, 0), P.Operand(0, 2), P.Operand(0, 2)))
    )
    ok = np.arange(16).reshape(1, 4, 4) % 19 - 9
    return Case(
        b.build(),
        [
            ([np.zeros((1, 5, 4), int)], [0]),
            ([ok], [4]),
            ([ok], [3]),
            ([ok + 10], [0]),
            ([ok], [2]),
        ],
    )


LOAD = [_load_refusal(step) for step in sorted(LOAD_STEPS)]
CASES = [
    graph_conv_transpose,
    graph_phase_form,
    graph_state_three_decodes,
    *LOAD,
    graph_load_refused_at_step_8,
    graph_refused_at_each_run_step,
]
