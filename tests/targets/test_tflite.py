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

from _helpers import (
    each_operator_exact_or_refused,
    examples,
    exact_or_refused,
    in_npu_acc32,
    needs,
    takes_what_its_description_takes,
)
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


@pytest.mark.parametrize("k, stride, pad, out_pad", [(5, 2, 2, 1), (4, 2, 1, 0), (3, 3, 0, 2)])
def test_a_transposed_convolution_is_exact_on_each_integer_path(k, stride, pad, out_pad):
    """TRANSPOSE_CONV unpadded, then sliced; an output padding past the padding (the last
    case) by zero rows below the input."""
    from waiexport.builder import conv_transpose

    rng = np.random.default_rng(k)
    b = GraphBuilder()
    x = b.input(3, -128, 127, max_h=8, max_w=8)
    block = rq(shift=[3, 6], round="half_up", bias=[7, -9], bias_kind="pre")
    w = rng.integers(-31, 32, (3, 2, k, k))
    params = conv_transpose(w, stride=stride, pad=pad, out_pad=out_pad, rq=block)
    b.output(b.op("conv_transpose", x, params, policy="clamp", lo=-128, hi=127))
    g = b.build()
    xs = rng.integers(-128, 128, (3, 5, 6))
    for path in INTEGER_PATHS:
        assert exact_or_refused(g, [([xs], [])] + probe_inputs(g), _engine(path))
    export(write(g), target("tflm")).built([(3, 5, 6)])  # taken, not refused


def test_the_xnnpack_delegate_runs_and_is_never_claimed():
    loaded = _engine("litert-xnnpack")().load(write(TIES))
    assert "requantises in float32" in loaded.unclaimable
    x = np.arange(-128, 128).reshape(1, 16, 16)
    assert loaded.decode([x], [])[0].shape == (4, 16, 16)


def test_xnnpack_s_float32_requantisation_is_located_past_2_24_on_a_tie(tmp_path):
    """acc = 2^24 + 2^17 + x at 2^-18: the tflm model's 4·acc + 2 is past 2^26, where float32
    rounds away its 2, so XNNPACK halves 64.5 to even (64) where half_up gives 65."""
    from click.testing import CliRunner

    from waiexport.cli import main
    from waiexport.conformance.vectors import make_vector, write_lines

    g = _conv(np.ones((1, 1, 1, 1)), 18, bias=[(64 << 18) + (1 << 17)])
    x = np.zeros((1, 16, 16), int)
    x[0, 0, :4] = [0, 2, 4, -2]
    (tmp_path / "tie.jsonl").write_bytes(write_lines([make_vector("tie", write(g), [([x], [])])]))
    out = {}
    for engine in ("tflm", "litert-xnnpack"):
        r = CliRunner().invoke(
            main,
            [
                "validate",
                "--engine",
                engine,
                "--target",
                "tflm",
                "--locate",
                str(tmp_path / "tie.jsonl"),
            ],
        )
        out[engine] = (r.exit_code, r.output)
    assert out["tflm"][0] == 0
    code, text = out["litert-xnnpack"]
    assert code == 1 and "expected 65, got 64" in text
    assert "operator 0 (conv)" in text and "diagnosis: float32 requantisation" in text


def _literal_ties(x, rounding):
    """The ties probe's convolution, literally: ``x·w + b`` at shifts 0, 1, 5, 9, rounded by
    ``rounding`` (half_up, or half_even: the mistake the probe names), clamped to int8."""
    out = []
    for w, s, b in zip([1, -1, 3, 31], [0, 1, 5, 9], [0, 1, -3, 7]):
        t = x.astype(np.int64) * w + b
        q, r, half = t >> s, t - ((t >> s) << s), (1 << s) >> 1
        up = (r > half) | ((r == half) & (s > 0) & ((rounding == "half_up") | (q % 2 == 1)))
        out.append(np.clip(q + up, -128, 127))
    return np.transpose(np.stack(out), (1, 2, 0))[None]


def test_each_probe_s_answer_is_a_literal_one_and_its_named_mistake_is_caught():
    from waiexport.targets.tflite.probes import FUSED_ADD, PROBES, TIES

    ties = next(p for p in PROBES if p.failure == TIES)
    x = ties.x[0]
    assert (ties.want == _literal_ties(x, "half_up")).all()
    assert ties.wrong(_literal_ties(x, "half_even")).startswith(TIES)
    fused = next(p for p in PROBES if p.failure == FUSED_ADD)
    relu = np.maximum(np.clip(fused.x + 100, -28, 127), 0)
    exact = np.clip(relu + fused.x, -128, 127)
    wrapped = ((relu + fused.x + 128) % 256 - 128).astype(np.int8)  # no saturation
    assert (fused.want[0, :, :, 0] == exact[0]).all()
    assert fused.wrong(np.transpose(wrapped, (1, 2, 0))[None]).startswith(FUSED_ADD)


@pytest.mark.parametrize("path", INTEGER_PATHS + ("litert-xnnpack",))
def test_each_kernel_path_is_probed_at_load_and_the_claim_says_what_was_found(path):
    words = _engine(path)().probed()
    if path == "litert-xnnpack":
        assert "1 wrong (a tie past 2^24 rounded in float32: CONV_2D on int8 gives 64" in words
    else:
        assert words.startswith("6 probes of this runtime") and "all exact" in words


def test_litert_s_reference_kernels_on_the_litert_target_s_models_run_to_a_located_report():
    from click.testing import CliRunner

    from waiexport.cli import main
    from waiexport.conformance.generate import CORPUS

    files = [str(CORPUS / "vectors" / f"{n}.jsonl") for n in ("conv", "conv_transpose", "add")]
    r = CliRunner().invoke(
        main, ["validate", "--engine", "litert-ref", "--target", "litert", "--locate", *files]
    )
    assert r.exit_code == 0, r.output
    assert "engine litert-ref (LiteRT's reference kernels" in r.output
    assert "running the litert target's models" in r.output and " 0 failed" in r.output


def _refusal(g) -> str:
    with pytest.raises(DoesNotFit) as e:
        export(write(g), target("tflm")).built([(1, 16, 16)])
    return str(e.value)


def test_what_no_kernel_path_computes_exactly_is_refused_by_node_and_reason():
    assert "node 0 (conv): a multiply operand of 9 bits; the MAC array takes 8" in _refusal(
        _conv(np.array([200]).reshape(1, 1, 1, 1), 3)
    )
    b = GraphBuilder()
    x = b.input(1, -(1 << 16), 1 << 16, max_h=16, max_w=16)
    b.output(b.op("conv", x, conv(np.ones((1, 1, 1, 1), int), rq=rq(shift=9))))
    assert "node 0 (conv): a multiply operand of 18 bits; the MAC array takes 16" in _refusal(
        b.build()
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
    clamped = _conv(np.ones((1, 1, 1, 1), int), 0, clamp=(0, 100))  # by MAXIMUM, MINIMUM
    x = np.arange(-128, 128).reshape(1, 16, 16)
    assert exact_or_refused(clamped, [([x], [])], _engine("tflm"))


def test_weights_past_6_bits_and_sums_past_int8_take_the_16x8_kernels_exactly():
    """Weights up to ±128 and outputs past int8: int16 activations, an int64 bias, one
    half_up rounding in the kernel (ties of both signs at shifts 0, 1, 5 and 9)."""
    g = _conv(
        np.array([1, -128, 90, 127]).reshape(4, 1, 1, 1),
        [0, 1, 5, 9],
        bias=[0, 1, -3, 7],
        clamp=(-32768, 32767),
    )
    x = np.arange(-128, 128).reshape(1, 16, 16)
    for path in INTEGER_PATHS:
        assert exact_or_refused(g, [([x], [])] + probe_inputs(g), _engine(path))
    assert "int16" in export(write(g), target("tflm")).built([(1, 16, 16)]).outputs.values()


@pytest.fixture(scope="module")
def realistic_jpegai(tmp_path_factory):
    """The realistic jpegai hyper-synthesis graphs (128 channels, as ``examples make --full``
    writes them)."""
    from waiexport.capabilities.examples import jpegai_bundle
    from waiexport.capabilities.lower import lower_set

    bundle = tmp_path_factory.mktemp("jpegai")
    jpegai_bundle(bundle, 128, 128)
    return lower_set("jpegai", bundle)[0]


@pytest.mark.parametrize("role", ["hs_y", "hs_uv"])
def test_the_realistic_hyper_synthesis_decodes_bit_exactly_on_each_integer_path(
    role, realistic_jpegai
):
    g = realistic_jpegai[role]
    rec = g.tensor(g.inputs[0].tensor)
    rng = np.random.default_rng(2)
    decodes = [([rng.integers(rec.lo, rec.hi + 1, (rec.channels, 4, 4))], []) for _ in range(3)]
    for path in INTEGER_PATHS:
        assert exact_or_refused(g, decodes + probe_inputs(g), _engine(path))


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


#: The operators the TFLite export lowers.
LOWERED = (
    "conv",
    "conv_transpose",
    "add",
    "relu",
    "clamp",
    "concat",
    "crop",
    "split",
    "pixel_shuffle",
    "pixel_unshuffle",
    "rescale",
    "abs",
)


@pytest.mark.parametrize("bits", [8, 16])
@pytest.mark.parametrize("name", LOWERED)
def test_each_lowered_operator_is_exact_on_tflm_and_litert_or_refused(name, bits):
    engines = [_engine(p) for p in INTEGER_PATHS]
    exported = each_operator_exact_or_refused(name, engines, EXAMPLES, bits)
    print(f"{name} at {bits} bits: {exported} drawn graphs exported for tflm, the rest refused")


def _fits_tflite(g) -> bool:
    """Whether the tflm description takes ``g`` (rewritten for it), read literally from its
    certificate: every operator lowered, every tensor within int16 (after its policy), each
    convolution groups 1 or depthwise with int8 weights; it and each rescale half_up with no
    post bias, a power-of-two multiplier, a scale 2^0..2^-32 and sums below 2^47."""
    from waiexport.bounds import certify_graph

    bounds = certify_graph(g, literal=True)
    if any(lo < -(1 << 15) or hi >= 1 << 15 for lo, hi in bounds.tensors.values()):
        return False
    for op, node in zip(g.ops, bounds.nodes):
        if op.name not in LOWERED:
            return False
        if op.name not in ("conv", "conv_transpose", "rescale"):
            continue
        p, c = op.params, g.tensor(op.inputs[0]).channels
        n = getattr(p, "cout", c)  # each output channel's requantisation
        if op.name != "rescale" and not -128 <= int(p.weights.min()) <= int(p.weights.max()) <= 127:
            return False
        if op.name == "conv" and not (p.groups == 1 or p.groups == c == p.cout):
            return False
        if p.rq.round != "half_up" or p.rq.bias_kind == "post":
            return False
        for m, s in zip(p.rq.mults(n), p.rq.shifts(n)):
            if m <= 0 or m & (m - 1) or not 0 <= s - (m.bit_length() - 1) <= 32:
                return False
        lo, hi = node.result.intermediates["rq.t"]
        if max(-lo, hi) >= 1 << 47:
            return False
    return True


@pytest.mark.parametrize("path", ["tflm", "litert"])
def test_each_target_takes_every_vector_its_description_takes_and_passes_each(path):
    takes_what_its_description_takes(path, _fits_tflite, _engine(path)())


def _chain():
    # every tensor at scale 1 through a chain: a kernel that requantises between its input's
    # and its output's scales (RELU does) sees no scale but 1
    rng = np.random.default_rng(5)
    b = GraphBuilder()
    x = b.input(4, -64, 63, max_h=8, max_w=8)
    y = b.op(
        "conv",
        x,
        conv(rng.integers(-31, 32, (4, 4, 3, 3)), pad=1, rq=rq(shift=9, round="half_up")),
        policy="clamp",
        lo=-64,
        hi=63,
    )
    y = b.op("relu", y)
    b.output(b.op("add", [y, x]))
    return b.build()


def test_a_chain_of_conv_relu_and_add_is_exact_on_each_integer_path():
    g = _chain()
    x = np.random.default_rng(6).integers(-64, 64, (4, 8, 8))
    for path in INTEGER_PATHS:
        assert exact_or_refused(g, [([x], [])] + probe_inputs(g), _engine(path))


def test_an_ethos_u_target_via_tflite_is_vela_s_compile_of_the_self_checked_model(tmp_path):
    needs("ethosu.vela", "vela")
    import json

    from click.testing import CliRunner

    from waiexport.cli import main

    (tmp_path / "g.whg1").write_bytes(write(_chain()))
    r = CliRunner().invoke(
        main,
        [
            "export",
            str(tmp_path / "g.whg1"),
            "--target",
            "ethos-u55-128",
            "--via",
            "tflite",
            "-o",
            str(tmp_path / "u"),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["self_check"]["on"].startswith("tflm") and d["self_check"]["bit_exact"]
    assert int(d["vela"]["npu_operators"]) >= 1 and (tmp_path / "u" / "g_vela.tflite").exists()
    r = CliRunner().invoke(
        main,
        [
            "export",
            str(tmp_path / "g.whg1"),
            "--target",
            "tflm",
            "--via",
            "tflite",
            "-o",
            str(tmp_path / "m.tflite"),
        ],
    )
    assert r.exit_code == 2 and "--via is for one that is" in r.output
