"""The TFLite int8 export and its four kernel paths: a convolution's requantisation at every
tie of both signs is the spec's half_up on TensorFlow Lite Micro, LiteRT's builtin and
reference kernels, bit for bit; LiteRT's XNNPACK delegate, which requantises in float32, runs
and is compared but never claimed; what no path computes exactly is refused by node."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

from waiexport import write
from waiexport.builder import GraphBuilder, conv, rq
from waiexport.descriptions import target
from waiexport.probes import probe_inputs
from waiexport.targets.errors import DoesNotFit
from waiexport.targets.exporter import export

from _helpers import examples, exact_or_refused, in_npu_acc32, needs
from _strategies import requantisation

needs("tflite_micro", "tflite")

#: Examples per property (each a model on an interpreter, milliseconds).
EXAMPLES = int(os.environ.get("WAIEXPORT_TFLITE_EXAMPLES", "12"))
INTEGER_PATHS = ("tflm", "litert", "litert-ref")


def _engine(path):
    from waiexport.targets.engines.litert import TfliteEngine

    return lambda: TfliteEngine(path=path)


def _conv(weights, shifts, bias=None, groups=1, cin=1, clamp=(-128, 127), pad=0):
    b = GraphBuilder()
    x = b.input(cin, -128, 127, max_h=16, max_w=16)
    kw = dict(bias=bias, bias_kind="pre") if bias is not None else {}
    block = rq(shift=shifts, round="half_up", **kw)
    y = b.op(
        "conv",
        x,
        conv(np.asarray(weights), pad=pad, groups=groups, rq=block),
        policy="clamp",
        lo=clamp[0],
        hi=clamp[1],
    )
    b.output(y)
    return b.build()


#: Four channels: shifts 0 (no rounding), 1, 5 and 9, weights up to 31 of both signs.
TIES = _conv(np.array([1, -1, 3, 31]).reshape(4, 1, 1, 1), [0, 1, 5, 9], bias=[0, 1, -3, 7])


@pytest.mark.parametrize("path", INTEGER_PATHS)
def test_ties_of_every_channel_s_shift_are_half_up_on_each_integer_path(path):
    x = np.arange(-128, 128).reshape(1, 16, 16)
    assert exact_or_refused(TIES, [([x], [])] + probe_inputs(TIES), _engine(path))


def test_a_depthwise_convolution_with_padding_is_exact_on_each_integer_path():
    rng = np.random.default_rng(3)
    g = _conv(rng.integers(-31, 32, (3, 1, 3, 3)), 4, bias=[5, -5, 0], groups=3, cin=3, pad=1)
    x = rng.integers(-128, 128, (3, 16, 16))
    for path in INTEGER_PATHS:
        assert exact_or_refused(g, [([x], [])], _engine(path))


def test_the_xnnpack_delegate_runs_and_is_never_claimed():
    loaded = _engine("litert-xnnpack")().load(write(TIES))
    assert "requantises in float32" in loaded.unclaimable
    x = np.arange(-128, 128).reshape(1, 16, 16)
    assert loaded.decode([x], [])[0].shape == (4, 16, 16)


def _refusal(g) -> str:
    with pytest.raises(DoesNotFit) as e:
        export(write(g), target("tflite-int8")).built([(1, 16, 16)])
    return str(e.value)


def test_what_no_kernel_path_computes_exactly_is_refused_by_node_and_reason():
    assert "node 0 (conv): weights past 6 bits" in _refusal(
        _conv(np.array([40]).reshape(1, 1, 1, 1), 3)
    )
    b = GraphBuilder()
    x = b.input(1, -128, 127, max_h=16, max_w=16)
    b.output(
        b.op(
            "conv",
            x,
            conv(np.ones((1, 1, 1, 1), int), rq=rq(shift=4, mult=3, round="half_up")),
            policy="clamp",
            lo=-128,
            hi=127,
        )
    )
    assert "a multiplier of 3, not a power of two" in _refusal(b.build())
    assert "a clamp to [0, 100]" in _refusal(_conv(np.ones((1, 1, 1, 1), int), 0, clamp=(0, 100)))


@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))
@given(requantisation(eight_bit=True))
def test_requantisations_at_their_ties_are_exact_on_tflm_or_refused(drawn):
    g, decodes = drawn
    assume(in_npu_acc32(g))
    exact_or_refused(g, decodes + probe_inputs(g), _engine("tflm"))


def test_the_corpus_on_tflm_fails_nothing_and_crashes_nothing():
    from waiexport.conformance.generate import CORPUS
    from waiexport.conformance.validate import files_under, validate

    got = [r.status for r in validate(_engine("tflm")(), files_under([CORPUS]))]
    assert "pass" in got and not {"fail", "crashed", "timed_out"} & set(got)


@pytest.mark.parametrize("name", ["conv", "relu", "clamp", "concat", "crop", "split"])
def test_each_lowered_operator_is_exact_on_tflm_and_litert_or_refused(name):
    from _strategies import NARROW, case

    exported = 0

    @settings(
        max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(case(name, dict(NARROW, values=(-128, 127))))
    def check(drawn):
        nonlocal exported
        g, inputs, scalars = drawn
        assume(in_npu_acc32(g))
        for path in ("tflm", "litert"):
            exported += exact_or_refused(g, [(inputs, scalars)] + probe_inputs(g), _engine(path))

    check()
    print(f"{name}: {exported} drawn graphs exported for tflite-int8, the rest refused by name")
