"""The runtime targets (``openvino-cpu``, ``tvm-llvm``, ``tract``) on drawn ``acc32`` graphs
of every operator and on requantisations at their rounding ties and range ends: each graph
runs bit-identical to the reference on the target's own runtime, or its export is refused
naming the node. TVM compiles per model and per shape (about a second each), so its example
count is ``WAIEXPORT_TVM_EXAMPLES`` (CONTRIBUTING.md); each skips by name without its extra."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from waiexport import write
from waiexport.probes import probe_inputs

from _helpers import clamped_fill, examples, exact_or_refused, past_the_kernel, verdict, with_extra
from _strategies import NARROW, PARAMS, case, requantisation

TVM_EXAMPLES = int(os.environ.get("WAIEXPORT_TVM_EXAMPLES", "4"))
RUNTIMES = [
    pytest.param("openvino-cpu", 12, marks=with_extra("openvino", "openvino")),
    pytest.param("tvm-llvm", TVM_EXAMPLES, marks=with_extra("tvm", "tvm")),
    pytest.param("tract", 12, marks=with_extra("tract", "tract")),
]
GRAPH_OPS = sorted(PARAMS)
EXPORTED: dict = {}
_ENGINES: dict = {}


def _engine(name: str):
    """One engine per runtime for the whole module (each starts a worker and probes)."""
    from waiexport.targets.engines import engine

    if name not in _ENGINES:
        _ENGINES[name] = engine(name, isolate=True)
    return _ENGINES[name]


def _run(name: str, n: int, body):
    settings(
        max_examples=examples(n),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )(body)()


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_every_operator_runs_exactly_on_the_runtime_or_is_refused_by_node(runtime, n):
    @given(data=st.data())
    def body(data):
        name = data.draw(st.sampled_from(GRAPH_OPS))
        g, inputs, scalars = data.draw(case(name, NARROW))
        assume(verdict(g)["acc32"])
        done = exact_or_refused(g, [(inputs, scalars)] + probe_inputs(g), lambda: _engine(runtime))
        EXPORTED.setdefault(runtime, []).append(done)

    _run(runtime, n * 4, body)


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_chains_where_runtimes_fuse_run_exactly_on_the_runtime_or_are_refused(runtime, n):
    """Chains of the random-graph generator (:mod:`waiexport.conformance.random_graphs`):
    requantisations, clamps and policies at the int32 ends and past 2^24, crops at scalar
    offsets, one after another, as a runtime's compiler fuses them."""
    from waiexport.conformance.random_graphs import Drawn, graph

    @given(data=st.data())
    def body(data):
        g = graph(Drawn(data.draw))
        assume(g is not None)
        exact_or_refused(g, probe_inputs(g), lambda: _engine(runtime))

    _run(runtime, n * 2, body)


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_check_export_and_the_runtime_agree_on_chains(runtime, n):
    """What ``check --target`` says fits (:func:`fit`, which ``export`` writes), the engine
    loads and its runtime computes exactly; what does not fit, the engine declines by node:
    never a decline at load that the verdict did not give, never a model the verdict
    refused."""
    from waiexport.conformance.random_graphs import Drawn, graph
    from waiexport.descriptions import target
    from waiexport.targets.errors import DoesNotFit, ExportError, NotForEngine
    from waiexport.targets.exporter import fit

    @given(data=st.data())
    def body(data):
        g = graph(Drawn(data.draw), longest=3)
        assume(g is not None)
        verdict = fit(write(g), target(runtime))
        try:
            _engine(runtime).load(write(g))
        except (DoesNotFit, NotForEngine, ExportError) as e:
            assert not verdict.fits, f"check says it fits; the engine: {e}"
            assert "node" in str(e) or "operator" in str(e), str(e)
            return
        assert verdict.fits, f"the engine loads what check refuses: {verdict.reasons}"
        exact_or_refused(g, probe_inputs(g), lambda: _engine(runtime))

    _run(runtime, n * 2, body)


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_requantisations_at_their_ties_run_exactly_on_the_runtime_or_are_refused(runtime, n):
    @given(requantisation())
    def body(drawn):
        g, decodes = drawn
        assume(verdict(g)["acc32"])
        done = exact_or_refused(g, decodes + probe_inputs(g), lambda: _engine(runtime))
        EXPORTED.setdefault(f"{runtime} rq", []).append(done)

    _run(runtime, n * 2, body)


def test_share_exported():
    """Print how many drawn graphs exported for each runtime target (the rest refused by
    node)."""
    for name, done in sorted(EXPORTED.items()):
        print(f"{name}: {sum(done)} of {len(done)} exported")
    assert not EXPORTED or any(any(done) for done in EXPORTED.values())


def _shuffled_signed_conv():
    from waiexport import params as P
    from waiexport.builder import GraphBuilder, conv, rq

    b = GraphBuilder()
    y = b.op(
        "conv",
        b.input(4, -128, 127),
        conv(np.arange(288).reshape(8, 4, 3, 3) % 41 - 20, pad=1, rq=rq(shift=6)),
    )
    b.output(b.op("pixel_shuffle", y, P.Factor(2)))
    return b.build()


@with_extra("tvm", "tvm")
def test_a_shuffled_signed_int8_conv_keeps_the_weights_first_product_on_tvm():
    # ort-cpu takes the x-first product for a signed int8 conv a pixel_shuffle alone reads
    # (its NHWC twin); TVM's, slower x-first there (its description's nhwc_sums), keeps the
    # weights-first one, with no ConvInteger in TVM: strided windows and a MatMulInteger,
    # no Gather
    from waiexport.descriptions import target
    from waiexport.targets.exporter import fit

    verdict = fit(write(_shuffled_signed_conv()), target("tvm-llvm"))
    assert verdict.fits, verdict.reasons
    ops = {n.op_type for n in verdict.export.prepared.graph.node}
    assert "Gather" not in ops and "MatMulInteger" in ops, ops


@with_extra("tract", "tract")
def test_a_shuffled_signed_int8_conv_takes_the_x_first_product_exactly_on_tract():
    # tract's int64 arithmetic is exact where no constant passes int32, so its model takes
    # ort-cpu's x-first product, whose gather's index arithmetic is int64 (it declined it
    # when its description named every int64 Mul and Add inexact), and tract computes it
    g = _shuffled_signed_conv()
    rng = np.random.default_rng(1)
    decodes = [([rng.integers(-128, 128, (4, 5, 7))], []) for _ in range(2)]
    decodes += [([np.full((4, 3, 3), v)], []) for v in (-128, 127)]
    assert exact_or_refused(g, decodes, lambda: _engine("tract"))


@pytest.mark.parametrize(
    "runtime, ops",
    [
        pytest.param("tract", ["gram", "igdn"], marks=with_extra("tract", "tract")),
        pytest.param("openvino-cpu", ["gram"], marks=with_extra("openvino", "openvino")),
    ],
)
def test_gram_and_igdn_run_exactly_where_the_runtime_lacks_an_exact_matmul(runtime, ops):
    """tract panics on int64 ``MatMul``: ``gram``'s sums in int32 ``MatMul``, widened for the
    shift (in int32, its rounding by bits failed to run in tract, "Evaluating BitwiseAnd:
    Dummy", 10 graphs of a campaign); ``igdn``'s by halves, its squares as ``x·(x + 1) − x``
    (tract fails an int64 ``Mul`` of a value by itself). OpenVINO computes ``MatMul``
    through float32: ``gram`` by products and ``CumSum``."""

    @given(data=st.data())
    def body(data):
        g, inputs, scalars = data.draw(case(data.draw(st.sampled_from(ops)), NARROW))
        assume(verdict(g)["acc32"])
        decodes = [(inputs, scalars)] + probe_inputs(g)
        assert exact_or_refused(g, decodes, lambda: _engine(runtime))

    _run(runtime, 12, body)


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_a_stride_past_the_kernel_runs_exactly_on_the_runtime(runtime, n):
    # its output's rows and columns are gathered at indices made by moves alone: with
    # arithmetic on them (int64 data, which OpenVINO and tract narrow) its export was refused
    g = past_the_kernel((2**16, 3), (1, 0), (2, 1))
    x = np.arange(8).reshape(2, 1, 4) - 3
    assert exact_or_refused(g, [([x], [])], lambda: _engine(runtime))


@pytest.mark.parametrize("runtime, n", RUNTIMES)
@pytest.mark.parametrize("stride, pad", [(4, 0), (6, 1)])
def test_a_4x4_transposed_conv_whose_stride_reaches_its_kernel_runs_on_the_runtime(
    runtime, n, stride, pad
):
    # on dynamic shapes OpenVINO sized its interleave wrong, a reshape reading a side of 1
    # where it was 7 (every decode "the shape of input data (3.35.4.4) conflicts with the
    # reshape pattern (1.3.4.4)"); on the decode's own shapes it is exact
    from waiexport.builder import GraphBuilder, conv_transpose, rq

    b = GraphBuilder()
    b.output(
        b.op(
            "relu",
            b.op(
                "conv_transpose",
                b.input(2, -128, 127),
                conv_transpose(
                    np.arange(96).reshape(2, 3, 4, 4) % 11 - 5,
                    stride=stride,
                    pad=pad,
                    rq=rq(shift=2),
                ),
            ),
        )
    )
    g = b.build()
    assert exact_or_refused(g, probe_inputs(g), lambda: _engine(runtime))


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_a_scalar_no_output_reads_is_no_runtime_s_failure(runtime, n):
    # a graph output that is its input, beside a fill of the scalar no output reads: OpenVINO
    # drops the scalar's input and refused a feed naming it ("Port for tensor name scalar0
    # was not found"), every decode an engine failure (a differential run's mutant)
    from waiexport import params as P
    from waiexport.builder import GraphBuilder

    b = GraphBuilder()
    x = b.input(1, -100, 100)
    b.scalar(-5, 5)
    b.op("fill", x, P.Fill(1, 0), channels=2)
    b.output(x)
    assert exact_or_refused(
        b.build(), [([np.arange(6).reshape(1, 2, 3) - 3], [4])], lambda: _engine(runtime)
    )


@with_extra("openvino", "openvino")
def test_openvino_declines_a_decode_past_the_longest_side_it_computes_exactly():
    # a 3x3 conv of side 2^24 + 1 computes its last column wrong on OpenVINO (a 1x1 one did
    # too on dynamic shapes: a differential run's mutant); past its description's side_limit
    # the decode is declined, so no claim is made, and at the limit it is exact
    from waiexport.builder import GraphBuilder, conv, rq
    from waiexport.targets.errors import NotForEngine

    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(1, -100, 100),
            conv(np.arange(9).reshape(1, 1, 3, 3) % 7 - 3, pad=1, rq=rq(shift=0)),
        )
    )
    g = b.build()
    at = np.arange(2**24).reshape(1, 1, -1) % 201 - 100
    assert exact_or_refused(g, [([at], [])], lambda: _engine("openvino-cpu"))
    past = np.arange(2**24 + 1).reshape(1, 1, -1) % 201 - 100
    with pytest.raises(NotForEngine, match="passes 16,777,216"):
        _engine("openvino-cpu").load(write(g)).decode([past], [])


def test_run_on_a_declined_decode_is_one_does_not_fit_line_naming_the_node(tmp_path):
    """``run --engine openvino-cpu`` on a decode past the side it computes exactly ended in
    NotForEngine's traceback (validate counted it declined)."""
    import json

    from click.testing import CliRunner
    from waiexport.builder import GraphBuilder
    from waiexport.cli import main

    pytest.importorskip("openvino", reason="needs OpenVINO: pip install 'waiexport[openvino]'")
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -5, 5)))
    (tmp_path / "g.whg1").write_bytes(write(b.build()))
    (tmp_path / "d.json").write_text(
        json.dumps(
            {"inputs": [{"data": [0] * (2**24 + 2), "shape": [1, 1, 2**24 + 2]}], "scalars": []}
        )
    )
    r = CliRunner().invoke(
        main,
        [
            "run",
            str(tmp_path / "g.whg1"),
            "--decode",
            str(tmp_path / "d.json"),
            "--engine",
            "openvino-cpu",
        ],
    )
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and "Traceback" not in r.output, r.output
    assert ": does-not-fit: decode 0: " in lines[0] and "16,777,218" in lines[0]
    assert "node 0 (relu)" in lines[0] or "an input" in lines[0]


@with_extra("tvm", "tvm")
@pytest.mark.parametrize("sized", [False, True])
def test_tvm_takes_a_crop_at_a_scalar_offset_followed_by_a_clamp(sized):
    """A crop whose offset is a scalar, then a clamp policy: TVM's frontend took no operator
    after the crop's Slice (its shape unknown), a traceback from run and export; the export
    states the window's size again, and TVM computes the reference's values. A crop whose
    size is a scalar too (the generator's chains): TVM declined every decode, naming no
    node; the scalars that place or size the window are compiled in per decode."""
    from waiexport.builder import GraphBuilder, crop
    from waiexport.reference import decode

    b = GraphBuilder()
    start = b.scalar(0, 2)
    size = ("scalar", b.scalar(1, 4)) if sized else 4
    x = b.input(1, -100, 100, max_h=8, max_w=8)
    b.output(b.op("crop", x, crop(("scalar", start), 0, size, 4), policy="clamp", lo=-5, hi=5))
    g = b.build()
    feed = np.arange(-32, 32).reshape(1, 8, 8)
    for scalars in ([0, 4], [1, 2], [2, 1]) if sized else ([0], [1], [2]):
        want = decode(g, [feed], scalars)
        got = _engine("tvm-llvm").load(write(g)).decode([feed], scalars)
        assert [np.asarray(a).tolist() for a in got] == [a.tolist() for a in want]


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_a_clamped_fill_read_by_an_add_stays_exact_from_decode_to_decode(runtime, n):
    """A constant fill with a clamp policy, added to an input (a differential run's chain):
    on OpenVINO the fill's Expand folds to a constant at fixed shapes, the clamp's BitwiseOr
    guard reads it, and each decode's sum was written into it, so decode k returned the sum
    of decodes 0..k. The fill is made from the input at run time there (FOLDED)."""
    g, decodes = clamped_fill(4, 1 << 24, 909967496)
    loaded = _engine(runtime).load(write(g))
    for k, (feed, want) in enumerate(decodes):
        assert loaded.decode(feed, [])[0].tolist() == want.tolist(), k


@with_extra("openvino", "openvino")
def test_openvino_still_writes_into_a_folded_constant_a_bitwise_operator_reads():
    """The measured fact behind openvino-cpu's FOLDED entry, on OpenVINO alone: Expand of a
    constant at fixed shapes, a BitwiseOr with 0, an Add of an input: each inference's sum
    is written into the constant. Should a release fix it, this fails, and the entry and the
    fill's run-time form can go."""
    import openvino as ov
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Expand", ["c", "s"], ["e"]),
        helper.make_node("BitwiseOr", ["e", "z"], ["o"]),
        helper.make_node("Add", ["o", "y"], ["out"]),
    ]
    inputs = [
        helper.make_tensor_value_info(k, TensorProto.INT32, [1, 2, None, None]) for k in ("x", "y")
    ]
    inits = [numpy_helper.from_array(np.array([v], np.int32), k) for k, v in (("c", 7), ("z", 0))]
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("out", TensorProto.INT32, None)], inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    core = ov.Core()
    m = core.read_model(model.SerializeToString(), b"")
    m.reshape({"x": [1, 2, 2, 2], "y": [1, 2, 2, 2]})
    request = core.compile_model(m, "CPU").create_infer_request()
    got = [
        int(
            list(
                request.infer(
                    {
                        "x": np.zeros((1, 2, 2, 2), np.int32),
                        "y": np.full((1, 2, 2, 2), 100, np.int32),
                    }
                ).values()
            )[0].ravel()[0]
        )
        for _ in range(3)
    ]
    assert got == [107, 207, 307]  # 107 each time, were it exact


LIMB_SHIFTS = [0, 1, 14, 15, 16, 29, 30, 31, 32, 45, 46, 62, 63]


@st.composite
def _past_32_bits(draw):
    """A ``rescale`` (or ``mul``, or ``leaky``) whose product passes 32 bits: int32 operands
    at their ends, multipliers up to ``2^31 − 1`` or as large as the shift lets ``rq.q`` fit
    i32, shifts at and past each 15-bit limb's edge, every rounding, both bias placements,
    per-channel multipliers and shifts; inputs at the ends and on the ties."""
    from waiexport import params as P
    from waiexport.builder import GraphBuilder, rq

    top = (1 << 31) - 1
    kind = draw(st.sampled_from(["rescale", "rescale", "mul", "leaky"]))
    shifts = [draw(st.sampled_from(LIMB_SHIFTS)) for _ in range(2)]
    if draw(st.booleans()):
        shifts[1] = shifts[0]
    mults = [draw(st.integers(0, min(top, 1 << s))) for s in shifts]
    mults = [
        draw(st.sampled_from([m, min(top, 1 << s), 1 << min(s, 30)])) for m, s in zip(mults, shifts)
    ]
    bias = draw(st.integers(-(1 << 12), 1 << 12))
    b = GraphBuilder()
    # the product of mul (and leaky's) is class acc, in i32: a narrower x, for a wider other
    lo, hi = (
        (-(1 << 31) + abs(bias), top - abs(bias)) if kind == "rescale" else (-(1 << 16), 1 << 16)
    )
    x = b.input(2, lo, hi, max_h=2, max_w=3)
    if kind == "leaky":
        a, f = draw(st.integers(-(1 << 14), 1 << 14)), draw(st.sampled_from(LIMB_SHIFTS))
        y = b.op("leaky", x, P.Leaky(a, f))
    else:
        block = rq(
            shift=shifts,
            mult=mults,
            bias=None if kind == "mul" else [bias, -bias],
            bias_kind=None if kind == "mul" else draw(st.sampled_from(["pre", "post"])),
            round=draw(st.sampled_from(["floor", "half_up", "half_even"])),
        )
        if kind == "mul":
            z = b.input(1, -(1 << 14), 1 << 14, max_h=2, max_w=3)
            y = b.op("mul", [x, z], P.Mul(block))
        else:
            y = b.op("rescale", x, P.Rescale(block))
    b.output(y)
    halves = [1 << (s - 1) for s in shifts if s]
    ties = [
        v
        for h in halves
        for m in mults
        if m
        for v in (h // m, -h // m, h // m + 1)
        if lo <= v <= hi
    ]
    values = (ties + [lo, hi, 0, 1, -1, lo + 1, hi - 1] * 2)[:12]
    extra = [[np.full((1, 2, 3), k)] for k in (-(1 << 14), 1 << 14)] if kind == "mul" else [[]]
    decodes = [([np.full((2, 2, 3), v)] + z_, []) for v in (lo, hi) for z_ in extra] + [
        ([np.array(values).reshape(2, 2, 3)] + extra[-1], [])
    ]
    return b.build(), decodes


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_products_past_32_bits_run_exactly_on_the_runtime(runtime, n):
    """The int32 limbs (:mod:`waiexport.targets.onnx.limbs`, OpenVINO's) and int64 (TVM's) at
    their worst cases, on the runtime as it compiles them: every graph of ``acc32`` exports
    and runs bit-exactly; on tract, whose optimiser does not finish on limbs, exact or
    declined by node."""

    @given(_past_32_bits())
    def body(drawn):
        g, decodes = drawn
        assume(verdict(g)["acc32"])
        done = exact_or_refused(g, decodes, lambda: _engine(runtime))
        assert done or runtime == "tract", "refused"

    _run(runtime, n * 2, body)


@pytest.mark.parametrize(
    "runtime",
    [
        pytest.param("openvino-cpu", marks=with_extra("openvino", "openvino")),
        pytest.param("tract", marks=with_extra("tract", "tract")),
    ],
)
def test_a_crop_sized_by_a_scalar_then_a_padded_conv_and_a_pad_rep_is_exact(runtime):
    """A fuzz campaign's bundle (seed 0, graph 1811): a crop whose width is a scalar, a 1x1
    conv padded at the sides, a ``pad_rep`` to a multiple of 4. OpenVINO padded the conv's
    width of 6 to 6, not 8 (its sizes from the scalar went wrong, the output's shape with
    them); tract fails a ``Slice`` of run-time bounds. Each engine binds the scalars per
    decode."""
    from waiexport import params as P
    from waiexport.builder import GraphBuilder, conv, crop, rq
    from waiexport.reference import decode

    b = GraphBuilder()
    y0, width = b.scalar(0, 2), b.scalar(1, 3)
    x = b.input(1, -1000, 1000, max_h=4, max_w=4)
    c = b.op("crop", x, crop(("scalar", y0), 1, 1, ("scalar", width)))
    w = np.array([1, 5, 82]).reshape(3, 1, 1, 1)
    y = b.op("conv", c, conv(w, stride=(3, 1), pad=(0, 2), rq=rq(shift=3, round="half_even")))
    b.output(b.op("pad_rep", y, P.PadRep(4)))
    g = b.build()
    loaded = _engine(runtime).load(write(g))
    feed = np.arange(-8, 8).reshape(1, 4, 4) * 97
    for scalars in ([0, 2], [2, 3], [1, 1], [0, 2]):
        want = decode(g, [feed], scalars)
        got = loaded.decode([feed], scalars)
        assert [np.asarray(a).tolist() for a in got] == [a.tolist() for a in want], scalars


@pytest.mark.parametrize("runtime, n", RUNTIMES)
def test_a_conv_of_a_subposition_runs_exactly_on_the_runtime(runtime, n):
    """A fuzz campaign's bundle (seed 0, graph 1715): a 3×2 conv, stride 1, of a
    ``subpos_split`` part. Its rows are views cut by a ``Split`` sized from the padded
    input's sides; after the strided ``Slice`` that makes the part, OpenVINO's bounds of the
    two sides overflowed in their product on dynamic shapes and it folded the cut to sizes
    0, so the model failed to compile ("Total length of splits: 0")."""
    from waiexport import params as P
    from waiexport.builder import GraphBuilder, conv, rq

    b = GraphBuilder()
    parts = b.op("subpos_split", b.input(3, -(1 << 20), 1 << 20), P.Subpos((0, 1, 2, 3)))
    w = np.arange(2 * 3 * 3 * 2).reshape(2, 3, 3, 2) % 9 - 4
    b.output(b.op("conv", parts[2], conv(w, rq=rq(shift=1))))
    g = b.build()
    assert exact_or_refused(g, probe_inputs(g), lambda: _engine(runtime))


@pytest.mark.parametrize(
    "runtime",
    [
        pytest.param("openvino-cpu", marks=with_extra("openvino", "openvino")),
        pytest.param("tract", marks=with_extra("tract", "tract")),
    ],
)
def test_a_fill_from_a_scalar_stays_an_input_from_decode_to_decode(runtime):
    """A fuzz campaign's bundle (seed 0, graph 1640): a fill whose value is a scalar, clamped,
    added to an input, decoded again with the same scalar. Bound as a constant, OpenVINO
    folded the fill and wrote each sum into it (:data:`FOLDED`): only the scalars that place
    or size a window are bound per decode, a value stays an input."""
    from waiexport import params as P
    from waiexport.builder import GraphBuilder
    from waiexport.reference import decode

    b = GraphBuilder()
    s = b.scalar(-574, 1)
    x = b.input(1, -4096, 4096, max_h=4, max_w=4)
    y = b.input(3, -(1 << 20), 1 << 20, max_h=4, max_w=4)
    f = b.op("fill", x, P.Fill(1, s), channels=3, policy="clamp", lo=-300, hi=-1)
    b.output(b.op("add", [f, y]))
    g = b.build()
    loaded = _engine(runtime).load(write(g))
    for k in (1, 2, 3, 1):
        inputs = [np.zeros((1, 4, 4), np.int64), np.full((3, 4, 4), 1000 * k)]
        want = decode(g, inputs, [-574])
        got = loaded.decode(inputs, [-574])
        assert [np.asarray(a).tolist() for a in got] == [a.tolist() for a in want], k


@st.composite
def _wide_conv(draw):
    """A ``conv`` of stride 1 or a ``conv_transpose`` of stride 2 (whose phases are stride 1)
    to 16 channels, the size at which OpenVINO's target takes Winograd's form, with a drawn
    requantisation; its input range narrow enough for the form's bounds, or not."""
    from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
    from waiexport.params import ROUNDS

    cin, cout = draw(st.integers(1, 3)), 16
    transposed = draw(st.booleans())
    k = draw(st.sampled_from([(4, 4), (5, 5), (4, 5)] if transposed else [(3, 3), (2, 3), (2, 2)]))
    shape = (cin, cout, *k) if transposed else (cout, cin, *k)
    n = int(np.prod(shape))
    w = np.array(draw(st.lists(st.integers(-40, 40), min_size=n, max_size=n))).reshape(shape)
    per = st.lists(st.integers(-(1 << 12), 1 << 12), min_size=cout, max_size=cout)
    bias = draw(st.none() | per)
    block = rq(
        shift=draw(st.integers(0, 14)),
        mult=draw(st.none() | st.lists(st.integers(1, 300), min_size=cout, max_size=cout)),
        bias=bias,
        bias_kind=None if bias is None else draw(st.sampled_from(["pre", "post"])),
        round=draw(st.sampled_from(ROUNDS)),
    )
    lo, hi = draw(st.sampled_from([(-128, 127), (0, 255), (-(1 << 14), 1 << 14)]))
    b = GraphBuilder()
    x = b.input(cin, lo, hi)
    if transposed:
        y = b.op("conv_transpose", x, conv_transpose(w, stride=2, pad=1, rq=block))
    else:
        y = b.op("conv", x, conv(w, pad=draw(st.integers(0, 1)), rq=block))
    b.output(y)
    return b.build()


@with_extra("openvino", "openvino")
def test_winograd_s_form_and_its_scale_in_the_requantisation_run_exactly_on_openvino():
    """Winograd's sum comes out 2× or 4× on a 3-tap axis: its requantisation takes the scale
    into its shifts where its int32 recipe still holds (:func:`..requant.room`), else the
    form divides it back; rounding ties from the probe inputs, each rounding and bias."""

    @given(g=_wide_conv(), ends=st.booleans(), data=st.data())
    def body(g, ends, data):
        assume(verdict(g)["acc32"])
        rec = g.tensor(g.inputs[0].tensor)
        h, w = data.draw(st.integers(2, 6)), data.draw(st.integers(2, 6))
        each = st.sampled_from([rec.lo, rec.hi]) if ends else st.integers(rec.lo, rec.hi)
        size = rec.channels * h * w
        x = np.array(data.draw(st.lists(each, min_size=size, max_size=size)))
        decodes = [([x.reshape(rec.channels, h, w)], [])] + probe_inputs(g)
        assert exact_or_refused(g, decodes, lambda: _engine("openvino-cpu"))

    _run("openvino-cpu", 12, body)


def test_the_requantisation_takes_winograd_s_scale_where_its_recipe_holds():
    """A 3×3 ``conv`` to 16 channels on OpenVINO's target: Winograd's form, its 4× left to
    the requantisation (no division in the form) where ``rq.p`` times 4 stays within int32,
    divided in the form where a multiplier of 2^14 takes ``rq.p`` past 2^30."""
    from unittest import mock

    from waiexport.builder import GraphBuilder, conv, rq
    from waiexport.descriptions import target
    from waiexport.targets.exporter import export
    from waiexport.targets.onnx.mac import winograd

    def divisions(mult: int) -> int:
        b = GraphBuilder()
        w = np.arange(16 * 2 * 9).reshape(16, 2, 3, 3) % 13 - 6
        block = rq(shift=3, mult=mult)
        b.output(b.op("conv", b.input(2, -(1 << 10), 1 << 10), conv(w, pad=1, rq=block)))
        with mock.patch.object(winograd, "bit_floor_shift", wraps=winograd.bit_floor_shift) as f:
            model = export(write(b.build()), target("openvino-cpu"), "t").built(None).native
        assert any(
            n.op_type == "Transpose" and list(n.attribute[0].ints) == [0, 3, 5, 1, 4, 2]
            for n in model.graph.node
        )
        return f.call_count

    assert divisions(1) == 0
    assert divisions(1 << 14) == 1
