"""The ONNX export and the onnxruntime engine: bit-identical to the reference, integer
tensors only, refusals on the host with their codes."""

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from waiexport import Refusal, write
from waiexport import params as P
from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
from waiexport.descriptions import target
from waiexport.optable import OPS
from waiexport.probes import probe_inputs
from waiexport.reference import decode
from waiexport.targets.engines import engine
from waiexport.targets.engines.ort import OrtEngine
from waiexport.targets.exporter import export
from waiexport.targets.onnx.emit import I32, I64, U8, Emitter, subgraph_nodes
from waiexport.targets.onnx.export import ExportError, check_integer_only
from waiexport.targets.onnx.lower import LOWER
from waiexport.targets.onnx.probes import typed_nodes, used

from _helpers import agree, examples, past_the_kernel, state_graph, verdict
from _strategies import NARROW, case

NPU_OPS = sorted(op.name for op in OPS if op.npu != "no")
ORT = target("ort-cpu")


def in_subset(g) -> bool:
    v = verdict(g)
    return v["acc32"] and v["npu"]


def test_lowerings_cover_every_operator():
    assert sorted(LOWER) == sorted(op.name for op in OPS)


@pytest.mark.parametrize("name", NPU_OPS)
@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_every_npu_operator_is_bit_exact_on_onnxruntime(name, data):
    g, inputs, scalars = data.draw(case(name, NARROW))
    assume(in_subset(g))
    exp = export(write(g), ORT)
    check_integer_only(exp.prepared)
    agree(write(g), inputs, scalars)
    for probe, probe_scalars in probe_inputs(g):  # the ends of every declared range
        agree(write(g), probe, probe_scalars)


def test_sixteen_and_twenty_four_bit_operands_split_into_digits():
    rng = np.random.default_rng(3)
    b = GraphBuilder()
    x = b.input(3, -(2**15), 2**15 - 1, max_h=5, max_w=5)
    y = b.op("conv", x, conv(rng.integers(-(2**7), 2**7, (2, 3, 2, 2)), pad=1, rq=rq(shift=12)))
    z = b.op(
        "conv",
        b.input(1, -(2**18), 2**18, max_h=5, max_w=5),
        conv([[[[2**11 + 3]]]], rq=rq(shift=9)),
    )
    b.output(
        y,
        z,
        b.op(
            "conv",
            b.input(1, -100, 100, max_h=5, max_w=5),
            conv([[[[-(2**23) + 5]]]], rq=rq(shift=9)),
        ),
    )
    g = b.build()
    assert in_subset(g)
    for probe, scalars in probe_inputs(g):
        agree(write(g), probe, scalars)
    agree(
        write(g),
        [
            rng.integers(-(2**15), 2**15, (3, 5, 5)),
            rng.integers(-(2**18), 2**18 + 1, (1, 5, 5)),
            rng.integers(-100, 101, (1, 5, 5)),
        ],
        [],
    )


def test_input_channels_split_so_no_int32_accumulator_overflows():
    # 13×13 taps of digits up to 255: at most 195 input channels per ConvInteger; 400 need
    # three. (Such sums pass acc32, so this drives the MAC builder directly.)
    from waiexport.targets.onnx.emit import Emitter
    from waiexport.targets.onnx.mac import conv_sum

    e = Emitter()
    w = np.random.default_rng(4).integers(-255, 256, (1, 400, 13, 13))
    conv_sum(e, "x", (-255, 255), w, groups=1, strides=(1, 1), pads=(0, 0, 0, 0))
    convs = [n for n in e.nodes if n.op_type == "ConvInteger"]
    assert len(convs) == 4 * 3


def test_one_int8_kernel_sums_every_channel_it_can():
    # 8-bit sign parts (at most 128 × 128 a product): 73,728 taps fit one int32 accumulator,
    # so the conv of the float-revealing vectors is one product for both sign parts (u8 × s8,
    # as a MatMulInteger or a ConvInteger of the int8 input; or one u8 × u8 ConvInteger per
    # sign pair), unsplit.
    rng = np.random.default_rng(4)
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(8192, -128, 127, max_h=3, max_w=3),
            conv(rng.integers(-128, 128, (1, 8192, 3, 3)), rq=rq(shift=16)),
        )
    )
    g = b.build()
    model = export(write(g), ORT).prepared
    kernels = [n.op_type for n in model.graph.node if n.op_type in ("ConvInteger", "MatMulInteger")]
    assert kernels in (["MatMulInteger"], ["ConvInteger"], ["ConvInteger"] * 4)
    agree(write(g), [np.full((8192, 3, 3), -128)], [])
    agree(write(g), [rng.integers(-128, 128, (8192, 3, 3))], [])


@pytest.mark.parametrize(
    "k, s, p, op",
    [(3, 2, 0, 0), (3, 2, 1, 0), (2, 3, 0, 2), (5, 2, 1, 3), (1, 3, 0, 0), (4, 3, 2, 1)],
)
def test_general_phase_decomposition(k, s, p, op):
    rng = np.random.default_rng(k + 10 * s)
    b = GraphBuilder()
    x = b.input(2, -100, 100)
    b.output(
        b.op(
            "conv_transpose",
            x,
            conv_transpose(
                rng.integers(-9, 10, (2, 3, k, k)),
                stride=s,
                pad=p,
                out_pad=op,
                rq=rq(shift=2, bias=[1, -7, 3]),
            ),
        )
    )
    g = b.build()
    exp = export(write(g), ORT)
    assert "conv_transpose" in [o.name for o in exp.graph.ops]  # not the phase rewrite's case
    for hw in [(1, 1), (2, 3), (5, 4)]:
        agree(write(g), [rng.integers(-100, 101, (2,) + hw)], [])


@pytest.mark.parametrize(
    "stride, hw, pad, out_pad",
    [
        ((2**20, 2**20), (1, 1), (0, 0), (0, 0)),
        ((2**16, 3), (1, 4), (1, 0), (2, 1)),
        ((5, 2**16), (3, 1), (0, 2), (0, 3)),
    ],
)
def test_a_stride_past_the_kernel_forms_no_plane_of_the_stride_s_size(stride, hw, pad, out_pad):
    # at one input row the stride's unreached rows made the interleaved plane the stride's
    # size while the output is the kernel's: at 2^20 × 2^20 onnxruntime refused to allocate
    # 4 TiB
    agree(
        write(past_the_kernel(stride, pad, out_pad)),
        [np.arange(2 * hw[0] * hw[1]).reshape((2,) + hw) - 3],
        [],
    )


@pytest.mark.parametrize(
    "value, dtype",
    [
        (2**63, I64),
        ([2**63, 1], I64),
        (2**64 - 1, I64),
        (-(2**63) - 1, I64),
        (2**31, I32),
        (0.5, I64),
        (np.array([256]), U8),
    ],
)
def test_a_constant_that_does_not_fit_its_type_is_refused_not_wrapped(value, dtype):
    # numpy reads 2^63 as a uint64 and a list holding it as floats: both were wrapped to
    # −2^63 where both sides of the check were cast alike
    with pytest.raises(ExportError, match="does not fit"):
        Emitter().const(value, dtype)


@pytest.mark.parametrize(
    "lo, hi, fed",
    [(-128, 127, TensorProto.INT8), (0, 255, U8), (-1, 128, I32), (-129, 0, I32), (0, 256, I32)],
)
def test_a_data_input_whose_range_fits_8_bits_is_fed_as_8_bits(lo, hi, fed):
    b = state_graph()
    x = b.input(2, lo, hi, max_h=4, max_w=4)
    b.output(b.op("conv", x, conv(np.arange(-8, 10).reshape(1, 2, 3, 3), pad=1, rq=rq(shift=3))))
    g = b.build()
    model = export(write(g), ORT).prepared
    assert [(i.name, i.type.tensor_type.elem_type) for i in model.graph.input] == [
        ("in0", TensorProto.INT8),
        ("state0", I32),
        ("in1", fed),
    ]  # the state as it comes back
    for probe, scalars in probe_inputs(g):
        agree(write(g), probe, scalars)


def test_an_int8_input_is_the_gemm_operand_itself():
    rng = np.random.default_rng(0)
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(4, -128, 127),
            conv(rng.integers(-128, 128, (4, 4, 3, 3)), pad=1, rq=rq(shift=8)),
        )
    )
    model = export(write(b.build()), ORT).prepared
    [gemm] = [n for n in model.graph.node if n.op_type == "ConvInteger"]
    assert gemm.input[0] == "in0" and not [n for n in model.graph.node if n.op_type == "Cast"]


@pytest.mark.parametrize(
    "policy, want", [("clamp", [[[127, 0, 127, 5]]]), ("check", "field_range")]
)
def test_the_host_applies_an_input_s_policy_before_it_narrows_the_input(policy, want):
    # 1000 as an int8 is −24: narrowed first, the clamp's 127 would come out 0
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -128, 127, policy=policy)))
    assert agree(write(b.build()), [np.array([[[1000, -1000, 300, 5]]])], []) == (
        want if isinstance(want, str) else [want]
    )


def test_model_says_what_it_is():
    from waiexport.capabilities.examples import tiny_synth

    data = write(tiny_synth())
    model = export(data, ORT).prepared
    meta = {p.key: p.value for p in model.metadata_props}
    import hashlib

    assert meta["wai.whg1_sha256"] == hashlib.sha256(data).hexdigest()
    assert set(meta) == {
        "wai.whg1_sha256",
        "wai.rewritten_sha256",
        "wai.certificate_sha256",
        "wai.target",
        "wai.tool",
    }
    assert [i.name for i in model.graph.input] == ["in0"]
    assert [o.name for o in model.graph.output] == ["out0"]
    onnx.checker.check_model(model, full_check=True)


def test_float_anywhere_is_caught():
    x = helper.make_tensor_value_info("x", TensorProto.INT32, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)], "g", [x], [y]
        ),
        opset_imports=[helper.make_opsetid("", 21)],
    )
    with pytest.raises(ExportError, match="floating point"):
        check_integer_only(model)


@pytest.mark.parametrize("how", ["cast", "attribute"])
@pytest.mark.parametrize("where", ["graph", "then_branch", "else_branch"])
def test_float_beside_or_inside_an_if_branch_is_caught(where, how):
    # float32 in a model with an If, in the graph or in one branch: a value cast to float32
    # and back (every value outside the branch an integer), or a float attribute on integer
    # values (Shrink's lambd), so only a check of every graph's nodes and values finds it
    x = helper.make_tensor_value_info("x", TensorProto.INT32, [1])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, [1])

    def floated(x: str, out: str) -> list:
        return (
            [
                helper.make_node("Cast", [x], [f"{out}_f"], to=TensorProto.FLOAT),
                helper.make_node("Cast", [f"{out}_f"], [out], to=TensorProto.INT32),
            ]
            if how == "cast"
            else [helper.make_node("Shrink", [x], [out], lambd=0.5)]
        )

    def branch(name: str):
        nodes = (
            floated("x", f"{name}_y")
            if name == where
            else [helper.make_node("Identity", ["x"], [f"{name}_y"])]
        )
        return helper.make_graph(
            nodes, name, [], [helper.make_tensor_value_info(f"{name}_y", TensorProto.INT32, [1])]
        )

    nodes = [
        helper.make_node(
            "If", ["c"], ["z"], **{b: branch(b) for b in ("then_branch", "else_branch")}
        )
    ]
    nodes += floated("z", "y") if where == "graph" else [helper.make_node("Identity", ["z"], ["y"])]
    model = helper.make_model(
        helper.make_graph(nodes, "g", [x, c], [y]), opset_imports=[helper.make_opsetid("", 21)]
    )
    with pytest.raises(ExportError, match="floating point|float attribute"):
        check_integer_only(model)


def test_state_scalars_and_host_refusals():
    b = GraphBuilder()
    s = b.scalar(0, 1)
    x = b.input(2, -10, 10, max_h=4, max_w=4)
    st_in = b.state(2, -50, 50, src=0, init=3, max_h=4, max_w=4)
    y = b.op("add", [x, st_in], policy="clamp", lo=-50, hi=50)
    b.output(y, b.op("fill", x, P.Fill(1, s), channels=1))
    data = write(b.build())
    model = export(data, ORT).prepared
    assert [i.name for i in model.graph.input] == ["in0", "state0", "scalar0"]
    seqs = [eng.load(data).sequence() for eng in (engine("reference"), OrtEngine())]
    for xv, sv in (([[[1]], [[2]]], 1), ([[[11]], [[0]]], 0), ([[[2]], [[-2]]], 0)):
        results = []
        for seq in seqs:
            try:
                results.append([o.tolist() for o in seq.step([np.array(xv)], [sv])])
            except Refusal as r:
                results.append(r.code)
        assert results[0] == results[1]
    assert results[0][0] == [[[6]], [[3]]]
    with pytest.raises(Refusal, match="too_large"):
        OrtEngine().load(data).run([np.zeros((2, 5, 4), int), np.zeros((2, 5, 4), int)], [0])
    with pytest.raises(Refusal, match="field_range"):
        OrtEngine().load(data).run([np.zeros((2, 4, 4), int), np.zeros((2, 4, 4), int)], [2])


def test_a_graph_outside_the_subset_is_refused_with_its_reason():
    b = GraphBuilder()
    b.output(b.op("igdn", b.input(1, -5, 5), P.Igdn(0, 0, 4, P.as_array([[1]]), P.as_array([1]))))
    with pytest.raises(Refusal, match="outside wai-ops/1-npu: op:igdn"):
        export(write(b.build()), target("npu-int8"))
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -(2**40), 2**40)))
    with pytest.raises(Refusal, match="does not meet acc32"):
        export(write(b.build()), ORT)


def test_reference_agrees_with_decode():
    # The engine interface runs the same integers as the function it wraps.
    from waiexport.capabilities.examples import tiny_synth

    g = tiny_synth()
    x = np.random.default_rng(0).integers(-128, 128, (8, 3, 4))
    assert (engine("reference").load(write(g)).decode([x], [])[0] == decode(g, [x], [])[0]).all()


# --- npu-int8: the strict unit's restricted model ---------------------------------------------

NPU = target("npu-int8")


def strict_graph(seed=0):
    """8-bit everywhere: a conv with a multiplier and a post bias, a k4 s2 p1
    conv_transpose (phase rewrite, then depth-to-space in DCR order), pad_rep by slices."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    x = b.input(3, -128, 127)
    y = b.op(
        "conv",
        x,
        conv(
            rng.integers(-128, 128, (4, 3, 3, 3)),
            pad=1,
            rq=rq(shift=9, mult=2, bias=[4, -8, 2, 0], bias_kind="post", round="half_up"),
        ),
        policy="clamp",
        lo=-128,
        hi=127,
    )
    y = b.op(
        "conv_transpose",
        y,
        conv_transpose(
            rng.integers(-128, 128, (4, 2, 4, 4)), stride=2, pad=1, rq=rq(shift=10, bias=[3, -5])
        ),
        policy="clamp",
        lo=-128,
        hi=127,
    )
    b.output(b.op("pad_rep", y, P.PadRep(3)))
    return b.build()


def test_npu_int8_model_uses_the_units_operators():
    g = strict_graph()
    exp = export(write(g), NPU)
    ops = {n.op_type for n in exp.prepared.graph.node}
    assert "DepthToSpace" in ops and "Pad" not in ops
    convs = [n for n in exp.prepared.graph.node if n.op_type == "ConvInteger"]
    kernels = sorted(tuple(a.ints) for n in convs for a in n.attribute if a.name == "kernel_shape")
    assert kernels == [(2, 2)] * 4 + [(3, 3)]  # the conv; each phase on its own 2×2 taps
    inits = {i.name: i for i in exp.prepared.graph.initializer}
    assert all(inits[n.input[1]].data_type == TensorProto.INT8 for n in convs)
    mode = [
        a.s
        for n in exp.prepared.graph.node
        if n.op_type == "DepthToSpace"
        for a in n.attribute
        if a.name == "mode"
    ]
    assert mode == [b"DCR"]
    check_integer_only(exp.prepared)


@settings(max_examples=examples(8), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 6))
def test_npu_int8_is_bit_exact(seed, h, w):
    g = strict_graph(seed % 5)
    data = write(g)
    rng = np.random.default_rng(seed)
    x = [rng.integers(-128, 128, (3, h, w))]
    ref = engine("reference").load(data).decode(x, [])
    got = engine("npu-int8").load(data).decode(x, [])
    assert [a.tolist() for a in ref] == [b.tolist() for b in got]


@pytest.mark.parametrize(
    "name, lo, hi", [("npu-int8", -128, 127), ("ort-cpu", -128, 127), ("ort-cpu", 0, 255)]
)
def test_a_shuffled_conv_output_that_is_also_a_graph_output_keeps_its_order(name, lo, hi):
    # the shuffle's order is folded into the conv's channels (npu-int8's DCR, ort-cpu's NHWC
    # twin); the conv's output read as a graph output too must come out in the graph's order
    rng = np.random.default_rng(hi)
    b = GraphBuilder()
    y = b.op(
        "conv",
        b.input(2, lo, hi),
        conv(rng.integers(-20, 20, (8, 2, 3, 3)), pad=1, rq=rq(shift=6, round="half_up")),
    )
    b.output(b.op("pixel_shuffle", y, P.Factor(2)), y)
    for x in (np.full((2, 4, 3), lo), np.full((2, 4, 3), hi), rng.integers(lo, hi + 1, (2, 4, 3))):
        agree(write(b.build()), [x], [], engine(name))


def test_npu_int8_refuses_what_the_unit_cannot_take():
    from waiexport.capabilities.examples import tiny_synth
    from waiexport.targets.exporter import DoesNotFit

    with pytest.raises(DoesNotFit, match="a multiply operand of 13 bits"):
        export(write(tiny_synth()), NPU)


@pytest.mark.parametrize("mode", ["floor", "half_up", "half_even"])
@pytest.mark.parametrize("s", [0, 1, 31, 32, 62, 63])
def test_requantisation_recipe_at_the_int64_extremes(mode, s):
    """The floor shift of signed int64 and the three roundings, on onnxruntime, at −2^63,
    2^63 − 1, ties of both signs and their neighbours (half_up adds 2^(s−1), so its values
    stop where that sum leaves i64, as the certificate's rq.p interval would)."""
    import onnxruntime as ort

    from waiexport.reference.integer import r_round
    from waiexport.targets.onnx.emit import I64, Emitter
    from waiexport.targets.onnx.requant import requantise

    half = (1 << (s - 1)) if s else 0
    values = [-(2**63), 2**63 - 1, -1, 0, 1] + [
        k * (1 << s) + half + d for k in (-3, -1, 0, 2) for d in (-1, 0, 1)
    ]
    values = [v for v in values if -(2**63) <= v < 2**63 and (mode == "floor" or v + half < 2**63)]
    e = Emitter()
    out = requantise(e, "p", round=mode, shifts=[s])
    model = helper.make_model(
        helper.make_graph(
            e.nodes,
            "g",
            [helper.make_tensor_value_info("p", I64, [1, 1, 1, None])],
            [helper.make_tensor_value_info(out, I64, [1, 1, 1, None])],
            e.inits,
        ),
        opset_imports=[helper.make_opsetid("", 21)],
        ir_version=10,
    )
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {"p": np.array(values, dtype=np.int64).reshape(1, 1, 1, -1)})[0]
    assert got.reshape(-1).tolist() == [r_round(v, s, mode) for v in values]


@pytest.mark.parametrize("mode", ["floor", "half_up", "half_even"])
@pytest.mark.parametrize("s", [1, 15, 30])
def test_the_int32_requantisation_at_the_i32_ends(mode, s):
    # t in i32 with p + 2^(s−1) still in i32: the recipe runs in int32 (no Cast to int64)
    half = 1 << (s - 1)
    lo, hi = -(2**31), 2**31 - 1 - half
    b = GraphBuilder()
    b.output(b.op("rescale", b.input(1, lo, hi), P.Rescale(rq(shift=s, round=mode))))
    g = b.build()
    model = export(write(g), ORT).prepared
    assert not any(
        n.op_type == "Cast" and n.attribute[0].i == TensorProto.INT64 for n in model.graph.node
    )
    ties = [k * (1 << s) + half for k in (-3, -1, 0, 2)]
    values = [lo, hi, -1, 0, 1, *ties, *(t - 1 for t in ties), *(t + 1 for t in ties)]
    agree(write(g), [np.array([[values]])], [])


def test_a_kernel_that_fails_the_probe_is_not_used(monkeypatch):
    # a double of onnxruntime's u8×s8 kernel that saturates: the export falls back to
    # u8×u8 ConvInteger and stays exact; the claim says what was probed
    import waiexport.targets.onnx.mac as mac
    from waiexport.targets.engines.ort import OrtEngine

    rng = np.random.default_rng(6)
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(4, -128, 127),
            conv(rng.integers(-128, 128, (3, 4, 3, 3)), pad=1, rq=rq(shift=6)),
        )
    )
    g = b.build()
    assert _u8s8(export(write(g), ORT).prepared) == mac.u8s8_exact()
    monkeypatch.setattr(mac, "u8s8_exact", lambda provider="CPUExecutionProvider": False)
    model = export(write(g), ORT).prepared
    assert not _u8s8(model) and ("ConvInteger", "uint8") in used(model)
    agree(write(g), [np.full((4, 5, 5), -128)], [])
    agree(write(g), [rng.integers(-128, 128, (4, 5, 5))], [])
    # an engine whose runtime fails the probe: its export takes u8×u8 too, and says so
    from waiexport.targets.onnx.probes import SATURATION

    eng = OrtEngine()
    eng._probed = {**eng.probe(), SATURATION: "int16 pair saturation: a double's saturating kernel"}
    model = eng.export(write(g)).prepared
    assert not _u8s8(model) and ("ConvInteger", "uint8") in used(model)
    assert "u8 x u8 ConvInteger" in eng.describe()["probed"]


def _u8s8(model) -> bool:
    """Whether ``model`` sums on onnxruntime's u8 × s8 kernel: a ``MatMulInteger`` of u8, or
    a ``ConvInteger`` of an int8 input (the weights-first product)."""
    return bool(used(model) & {("MatMulInteger", "uint8"), ("ConvInteger", "int8")})


def _matmul_integer(pairs_in):
    """A double of a ``MatMulInteger`` kernel that adds each pair of products by
    ``pairs_in`` (a function of the pairs' sums) before the rest of the sum."""
    from onnx.reference.op_run import OpRun

    class MatMulInteger(OpRun):
        op_domain = ""

        def _run(self, a, b, a_zero_point=None, b_zero_point=None):
            a, b = a.astype(np.int64), b.astype(np.int64)
            if a.shape[-1] % 2:
                a, b = np.pad(a, [(0, 0), (0, 1)]), np.pad(b, [(0, 1), (0, 0)])
            terms = a[:, :, None] * b[None, :, :]
            return (
                pairs_in(terms.reshape(a.shape[0], -1, 2, b.shape[1]).sum(axis=2)).astype(np.int32),
            )

    return MatMulInteger


@pytest.mark.parametrize(
    "lo,hi,exact",
    [
        (-(1 << 15), (1 << 15) - 1, True),
        (-(1 << 15) + 1, (1 << 15) - 1, False),
        (-(1 << 15), 32639, False),
    ],
)
def test_the_pair_probe_sits_at_the_int16_ends_its_digits_reach(lo, hi, exact):
    # a double of a u8×s8 kernel that adds each pair of products in int16, saturating to
    # [lo, hi]: the int16 one passes the probe (every digit's pairs fit), one that holds
    # -32768 no more fails it (128 × -128, both operand orders), and one that holds 32640
    # no more fails it too (255 × 64, the base-256 digits)
    from onnx.reference import ReferenceEvaluator

    from waiexport.targets.onnx.probes import PROBES, SATURATION

    double = _matmul_integer(lambda pairs: np.clip(pairs, lo, hi).sum(axis=1))
    probe = next(p for p in PROBES if p.name == SATURATION)
    got = ReferenceEvaluator(probe.model(), new_ops=[double]).run(None, dict(probe.feed))[0]
    assert (probe.wrong(got) is None) == exact


@pytest.mark.parametrize("kernel,exact", [("AVX2's int16 pairs", True), ("float32 sums", False)])
def test_the_matmul_integer_probes_fail_float32_sums_and_not_avx2_s_pairs(kernel, exact):
    # AVX2's u8×s8 kernel saturates a pair of 255 × 127 in int16, which no model of ours
    # multiplies: every probe of MatMulInteger passes it (the float32 probe did not, so
    # onnxruntime on such a CPU had no claim for any model using it); a kernel that sums in
    # float32 fails the float32 probe
    from onnx.reference import ReferenceEvaluator

    from waiexport.targets.onnx.probes import FLOAT32, PROBES

    def avx2(pairs):
        return np.clip(pairs, -(1 << 15), (1 << 15) - 1).sum(axis=1)

    def float32(pairs):
        out = np.zeros((pairs.shape[0], pairs.shape[2]), np.float32)
        for k in range(pairs.shape[1]):
            out += pairs[:, k, :].astype(np.float32)
        return out

    double = _matmul_integer(avx2 if kernel.startswith("AVX2") else float32)
    probes = [p for p in PROBES if any(n[0] == "MatMulInteger" for n in p.nodes)]
    wrong = {
        p.name: p.wrong(ReferenceEvaluator(p.model(), new_ops=[double]).run(None, dict(p.feed))[0])
        for p in probes
    }
    assert len(probes) == 3
    if exact:
        assert not any(wrong.values()), wrong
    else:
        assert [w.split(":")[0] for w in wrong.values() if w] == [FLOAT32], wrong


def test_the_u8_s8_path_at_the_int16_pair_ends():
    # sign parts of 128 and 127 against weights of -128 and 127: every pair sum at its end
    for wv in (-128, 127):
        b = GraphBuilder()
        b.output(b.op("conv", b.input(8, -128, 127), conv(np.full((2, 8, 3, 3), wv), pad=1)))
        g = b.build()
        for xv in (-128, 127):
            agree(write(g), [np.full((8, 4, 4), xv)], [])
        agree(write(g), [np.where(np.arange(128).reshape(8, 4, 4) % 2, -128, 127)], [])


def _requantise_on_ort(values, dtype, **kw):
    """``requantise`` alone as a model on onnxruntime: its outputs and its operator types."""
    import onnxruntime as ort

    from waiexport.targets.onnx.emit import Emitter
    from waiexport.targets.onnx.requant import requantise

    e = Emitter()
    out = requantise(e, "p", dtype=dtype, **kw)
    model = helper.make_model(
        helper.make_graph(
            e.nodes,
            "g",
            [helper.make_tensor_value_info("p", dtype, [1, 1, 1, None])],
            [helper.make_tensor_value_info(out, dtype, [1, 1, 1, None])],
            e.inits,
        ),
        opset_imports=[helper.make_opsetid("", 21)],
        ir_version=10,
    )
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    arr = np.array(values, dtype=np.int32 if dtype == TensorProto.INT32 else np.int64)
    got = session.run(None, {"p": arr.reshape(1, 1, 1, -1)})[0]
    return got.reshape(-1).tolist(), [n.op_type for n in model.graph.node]


@settings(max_examples=examples(60), deadline=None)
@given(wide=st.booleans(), mode=st.sampled_from(["floor", "half_up"]), data=st.data())
def test_the_lifted_division_at_the_ends_of_its_span(wide, mode, data):
    # p = v + pre within a certified span: the floor shift lifts p by K·2^s and divides
    # without Mod where p + K·2^s fits the width, and keeps the Mod form where it would not
    # (a shift of 0 is no operation at all); the bias, the half and the lift are one Add
    # where their sum fits the width
    from waiexport.reference.integer import r_round

    dtype = TensorProto.INT64 if wide else TensorProto.INT32
    bits = 63 if wide else 31
    s = data.draw(st.integers(0, 62 if wide else 30), label="s")
    half = (1 << (s - 1)) if s and mode == "half_up" else 0
    lo = data.draw(st.integers(-(1 << bits), (1 << bits) - 1 - half), label="lo")
    hi = data.draw(st.integers(lo, (1 << bits) - 1 - half), label="hi")
    picks = [lo, hi, max(lo, min(hi, 0))] + [
        v
        for k in (lo >> s, (lo >> s) + 1, hi >> s, 0)
        for v in (k * (1 << s) - half - 1, k * (1 << s) - half, k * (1 << s) - half + 1)
        if lo <= v <= hi
    ]
    pre = data.draw(st.sampled_from([0, 1, -1, lo, hi, -(1 << bits), (1 << bits) - 1]), label="pre")
    ins = [v - pre for v in picks if -(1 << bits) <= v - pre < 1 << bits]
    got, ops = _requantise_on_ort(
        ins, dtype, round=mode, shifts=[s], span=(lo, hi + half), pre=[pre]
    )
    assert got == [r_round(v + pre, s, mode) for v in ins]
    lift = max(0, -(lo >> s)) << s
    assert ("Mod" in ops) == (s > 0 and max(lift, hi + half + lift) >= 1 << bits)
    if "Mod" not in ops and abs(pre + half + lift) < 1 << bits:
        assert ops.count("Add") <= 1, ops


@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(sh=st.integers(1, 3), sw=st.integers(1, 3), k=st.integers(1, 5), data=st.data())
def test_the_int8_phase_interleave_at_the_clamp_ends(sh, sw, k, data):
    # a conv_transpose whose clamped output is int8 interleaves its phases on int8 (int8
    # Transposes, not onnxruntime's slower DepthToSpace); exact at both clamp ends, and
    # where a stride past the kernel gathers the unreached positions' rq_o(0)
    w = np.array(
        data.draw(
            st.lists(
                st.sampled_from([-128, -1, 0, 1, 127]),
                min_size=3 * 2 * k * k,
                max_size=3 * 2 * k * k,
            )
        )
    ).reshape(3, 2, k, k)
    pad = data.draw(st.integers(0, k - 1))
    b = GraphBuilder()
    b.output(
        b.op(
            "conv_transpose",
            b.input(3, -128, 127),
            conv_transpose(w, stride=(sh, sw), pad=pad, rq=rq(shift=data.draw(st.integers(0, 9)))),
            policy="clamp",
            lo=-128,
            hi=127,
        )
    )
    g = b.build()
    assume(in_subset(g))
    moves = used(export(write(g), ORT).prepared)
    assert (
        ("Transpose", "int8") in moves
        and ("DepthToSpace", "int8") not in moves
        or min(sh, k) == min(sw, k) == 1
    )  # one reached residue: nothing to interleave
    rng = np.random.default_rng(k)
    for x in (
        np.full((3, 5, 4), -128),
        np.full((3, 5, 4), 127),
        np.where(np.arange(60).reshape(3, 5, 4) % 2, -128, 127),
        rng.integers(-128, 128, (3, 5, 4)),
    ):
        agree(write(g), [x], [])


@settings(max_examples=examples(15), deadline=None, suppress_health_check=list(HealthCheck))
@given(k=st.sampled_from([2, 4]), data=st.data())
def test_a_clamped_int8_phase_stack_moves_its_phases_once(k, data):
    # two stride-2 conv_transposes of twice the size (no crop), clamped to int8, their
    # phases weights first (a weight of −128, whose negation is no int8, keeps an int8
    # input's sign parts apart on the x-first path): the phase form's channels come
    # phase-major (the shuffle's DCR order folded into the weights), so the groups of equal
    # taps (each phase's own) join in channel order with no Gather, the shuffle is two int8
    # Transposes, and the next GEMM reads the int8 result with no cast to int32 and back;
    # exact at the clamp ends
    import waiexport.targets.onnx.mac as mac

    def draw(*shape):
        w = np.array(
            data.draw(
                st.lists(
                    st.sampled_from([-128, -1, 1, 127]),
                    min_size=int(np.prod(shape)),
                    max_size=int(np.prod(shape)),
                )
            )
        ).reshape(shape)
        w[0, 0, 0, 0] = -128
        return w

    b = GraphBuilder()
    y = b.input(2, -128, 127)
    for cout in (3, 2):
        y = b.op(
            "conv_transpose",
            y,
            conv_transpose(
                draw(2 if cout == 3 else 3, cout, k, k), stride=2, pad=k // 2 - 1, rq=rq(shift=9)
            ),
            policy="clamp",
            lo=-128,
            hi=127,
        )
    b.output(y)
    g = b.build()
    assume(in_subset(g) and mac.u8s8_exact())
    model = export(write(g), ORT).prepared
    made = {o: n for n in model.graph.node for o in n.output}
    ops = [n.op_type for n in model.graph.node]
    assert "Gather" not in ops and "DepthToSpace" not in ops
    assert [t for _, op, t in typed_nodes(model) if op == "Transpose"] == ["int8"] * 4
    assert not [
        n
        for n in model.graph.node
        if n.op_type == "Cast"
        and made.get(n.input[0]) is not None
        and made[n.input[0]].op_type == "Cast"
    ]
    rng = np.random.default_rng(k)
    for x in (
        np.full((2, 3, 4), -128),
        np.full((2, 3, 4), 127),
        np.where(np.arange(24).reshape(2, 3, 4) % 2, -128, 127),
        rng.integers(-128, 128, (2, 3, 4)),
    ):
        agree(write(g), [x], [])


@pytest.mark.parametrize(
    "lo,hi",
    [
        (0, 128),
        (0, 129),
        (-129, 0),
        (0, 255),
        (0, 256),
        (0, 2269),
        (-3000, 56463),
        (-900000, 900000),
    ],
)
def test_the_digits_at_the_ends_of_the_input(lo, hi):
    # every sign part and digit a u8 against int8 weights at both ends: base 128 (digits of
    # at most 128; the pair sums at ±128·127 and 128·−128, the borrow at 127/128) for
    # weights past 64 in magnitude, base 256 (at most 255; pairs at ±255·64, the borrow at
    # 255/256) for weights within it; where a digit's top passes one u8, the input within
    # one digit takes the If's one-digit branch, and at its ends too
    import waiexport.targets.onnx.mac as mac

    for wv, base in ((-128, 128), (127, 128), (-64, 256), (64, 256)):
        b = GraphBuilder()
        b.output(b.op("conv", b.input(2, lo, hi), conv(np.full((2, 2, 3, 3), wv), pad=1)))
        g = b.build()
        model = export(write(g), ORT).prepared
        ops = [n.op_type for n in subgraph_nodes(model.graph.node)]
        assert ("MatMulInteger" in ops) == mac.u8s8_exact() and "Mod" not in ops
        last = min(base, 255)
        few = (max(lo, -last), min(hi, last))
        if mac.u8s8_exact():  # each digit moved to NHWC once, as a u8, in each branch
            assert ("If" in ops) == (few != (lo, hi))
            assert [t for _, op, t in typed_nodes(model) if op == "Transpose"].count(
                "uint8"
            ) == sum(
                len(mac.nhwc._tops(bound, base))
                for r in {(lo, hi), few}
                for bound in (r[1], -r[0])
                if bound > 0
            )
        for x in (
            np.full((2, 4, 4), lo),
            np.full((2, 4, 4), hi),
            np.full((2, 4, 4), few[0]),
            np.full((2, 4, 4), few[1]),
            np.where(np.arange(32).reshape(2, 4, 4) % 2, lo, hi),
            np.where(np.arange(32).reshape(2, 4, 4) % 3, base - 1, base).clip(lo, hi),
            np.random.default_rng(hi).integers(lo, hi + 1, (2, 4, 4)),
        ):
            agree(write(g), [x], [])


def _conv_case(data, values: list, cout: tuple, k: tuple, pad: tuple):
    """A conv's channels in, out (in the range ``cout``), kernel side, stride, padding and
    weights ``[cout, cin, k, k]`` drawn from ``values``."""
    cin, cout = data.draw(st.integers(1, 3)), data.draw(st.integers(*cout))
    k, stride, pad = (
        data.draw(st.integers(*k)),
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(*pad)),
    )
    n = cout * cin * k * k
    w = np.array(data.draw(st.lists(st.sampled_from(values), min_size=n, max_size=n)))
    return cin, cout, k, stride, pad, w.reshape(cout, cin, k, k)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_weights_first_product_by_groups_of_support(data):
    # a signed int8 input against int8 weights whose output channels leave out taps of
    # their own (the phase form's missing taps): one product per group of channels with the
    # same taps, put back in channel order, exact at the ends of the input and the weights
    import waiexport.targets.onnx.mac as mac

    cin, cout, k, stride, pad, w = _conv_case(
        data, [-128, -1, 1, 127], cout=(1, 6), k=(1, 3), pad=(0, 2)
    )
    masks = data.draw(
        st.lists(
            st.lists(st.booleans(), min_size=k * k, max_size=k * k), min_size=cout, max_size=cout
        )
    )
    w = w * np.array(masks).reshape(cout, 1, k, k)
    assume(w.any())
    lo = data.draw(st.sampled_from([-128, -1]))
    hi = data.draw(st.sampled_from([0, 127]))
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(cin, lo, hi),
            conv(w, stride=stride, pad=pad, rq=rq(shift=data.draw(st.integers(0, 12)))),
        )
    )
    g = b.build()
    assume(in_subset(g))
    model = export(write(g), ORT).prepared
    assert _u8s8(model) and ("Transpose", "uint8") not in used(model) or not mac.u8s8_exact()
    h, wd = data.draw(st.integers(k, k + 3)), data.draw(st.integers(k, k + 3))
    n = cin * h * wd
    for x in (
        np.full(n, lo),
        np.full(n, hi),
        np.resize([lo, hi], n),
        np.array(
            data.draw(st.lists(st.sampled_from([lo, hi, 0, -1, 1]), min_size=n, max_size=n))
        ).clip(lo, hi),
    ):
        agree(write(g), [x.reshape(cin, h, wd)], [])


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_x_first_product_by_groups_of_trimmed_kernels(data):
    # an input the x-first product takes (non-negative, or past int8) against output
    # channels whose kernels leave out border rows and columns of their own (the phase
    # form's missing taps): one gather and one GEMM per group of equal trims and digit, the
    # groups' columns put back in channel order, exact at the ends of the input and weights
    from unittest import mock

    import waiexport.targets.onnx.mac as mac

    cin, cout, k, stride, pad, w = _conv_case(
        data, [-64, -1, 1, 63], cout=(2, 6), k=(2, 4), pad=(1, 2)
    )
    for o in range(cout):
        top, bottom, left, right = (
            data.draw(st.integers(0, min(pad, (k - 1) // 2))) for _ in range(4)
        )
        w[o, :, :top], w[o, :, k - bottom :], w[o, :, :, :left], w[o, :, :, k - right :] = (
            0,
            0,
            0,
            0,
        )
    lo, hi = data.draw(st.sampled_from([(0, 255), (0, 2269), (-2269, 2269), (-129, 0)]))
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(cin, lo, hi),
            conv(w, stride=stride, pad=pad, rq=rq(shift=data.draw(st.integers(0, 12)))),
        )
    )
    g = b.build()
    assume(in_subset(g) and mac.u8s8_exact())
    h, wd = data.draw(st.integers(k, k + 3)), data.draw(st.integers(k, k + 3))
    n = cin * h * wd
    inputs = [
        np.full(n, lo),
        np.full(n, hi),
        np.resize([lo, hi], n),
        np.array(
            data.draw(st.lists(st.sampled_from([lo, hi, 0, 255, 256]), min_size=n, max_size=n))
        ).clip(lo, hi),
    ]
    with mock.patch.object(mac.nhwc, "_COLUMNS", 1), mock.patch.object(mac.nhwc, "GROUPED", 1.0):
        ops = [n.op_type for n in subgraph_nodes(export(write(g), ORT).prepared.graph.node)]
        groups = mac.nhwc._column_groups(w, (pad,) * 4)
        shared = mac.nhwc._shared_window(groups, (stride, stride), (k, k))
        for x in inputs:
            agree(write(g), [x.reshape(cin, h, wd)], [])
    few = (max(lo, -255), min(hi, 255))  # the If's one-digit branch, and the whole product;
    digits = sum(
        max(
            len(mac.nhwc._tops(bound, 256)) if bound > 0 else 0  # a digit's sign parts
            for bound in (r[1], -r[0])
        )
        for r in {(lo, hi), few}
    )  # in one GEMM
    assert ops.count("MatMulInteger") == digits * (1 if shared else len(groups))


@settings(max_examples=examples(15), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_groups_of_one_window_size_share_one_gather_and_gemm(data):
    # output channels whose 2 x 2 taps sit at different corners of a 3 x 3 kernel (the
    # phases of a k4 s2 transposed convolution, or only some of them, so the shared grid
    # holds windows no group reads): one gather and one GEMM a digit over every group's
    # columns, each group's sums its own shifted window, exact at the input's ends; the
    # requantisation, clamp and narrowing run on the whole grid before the groups' slices
    from unittest import mock

    import waiexport.targets.onnx.mac as mac

    corners = data.draw(
        st.lists(
            st.sampled_from([(0, 0), (0, 1), (1, 0), (1, 1)]), min_size=2, max_size=4, unique=True
        )
    )
    per, cin = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    w = np.zeros((per * len(corners), cin, 3, 3), int)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    for k, (t, left) in enumerate(corners):
        w[k * per : (k + 1) * per, :, t : t + 2, left : left + 2] = rng.choice(
            [-64, -1, 1, 63], (per, cin, 2, 2)
        )
    lo, hi = data.draw(st.sampled_from([(0, 255), (-2269, 2269), (-128, 127)]))
    b = GraphBuilder()
    y = b.op(
        "conv", b.input(cin, lo, hi), conv(w, pad=1, rq=rq(shift=data.draw(st.integers(0, 12))))
    )
    b.output(b.op("clamp", y, P.Clamp(-128, 127)) if data.draw(st.booleans()) else y)
    g = b.build()
    assume(in_subset(g) and mac.u8s8_exact())
    h, wd = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    n = cin * h * wd
    with mock.patch.object(mac.nhwc, "_COLUMNS", 1):
        groups = mac.nhwc._column_groups(w, (1,) * 4)
        assert mac.nhwc._shared_window(groups, (1, 1), (3, 3)) is not None
        ops = [n.op_type for n in subgraph_nodes(export(write(g), ORT).prepared.graph.node)]
        for x in (
            np.full(n, lo),
            np.full(n, hi),
            np.resize([lo, hi], n),
            rng.integers(lo, hi + 1, n),
        ):
            agree(write(g), [x.reshape(cin, h, wd)], [])
    if lo < 0 and hi < 128:
        return  # a signed int8 input read NCHW: the weights-first product
    few = (max(lo, -255), min(hi, 255))  # a GEMM a digit (its sign parts joined) in each
    assert ops.count("MatMulInteger") == sum(  # of the If's branches, every group in it
        max(len(mac.nhwc._tops(bound, 256)) for bound in (r[1], -r[0]) if bound > 0)
        for r in {(lo, hi), few}
    )


def test_the_realistic_int_synth_takes_its_phases_apart_where_they_are_wide():
    # its first two layers' phases (128 and 64 channels each) are multiplied on their own
    # taps, 25 of the 36 of one 3 x 3 kernel; its last layer's (3 channels each) together;
    # the int8 latent's two sign parts in one GEMM a phase, then each relu output's two
    # digits, or one in the If's branch for values within one u8
    import tempfile
    from pathlib import Path

    import waiexport.targets.onnx.mac as mac
    from waiexport.capabilities.examples import int_synth_source
    from waiexport.capabilities.lower import lower_set

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "s.json").write_bytes(int_synth_source())
        g = lower_set("int_synth", Path(d) / "s.json")[0]["synth"]
    exp = export(write(g), ORT, "synth")
    ops = [n.op_type for n in subgraph_nodes(exp.prepared.graph.node)]
    assert not mac.u8s8_exact() or ops.count("MatMulInteger") == 4 + (2 + 1) * 4 + (2 + 1)
    assert exp.format.nodes(exp.built()) == len(ops)  # the count a report gives: branches too


def test_a_digit_sum_past_int32_is_split_over_channels():
    # x in [0, 129] has digits of 127 and 1; 140,000 channels of weights 127 and −128 meet
    # acc32 (the certificate's sums stay under 2^31) while the low digit's sum does not fit
    # one int32 accumulator, so its GEMM is split over channels
    cin = 140000
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(cin, 0, 129),
            conv(np.resize([127, -128], cin).reshape(1, cin, 1, 1), rq=rq(shift=20)),
        )
    )
    g = b.build()
    assert in_subset(g)
    ops = [n.op_type for n in subgraph_nodes(export(write(g), ORT).prepared.graph.node)]
    # the low digit in two channel chunks, the high one; the If's branch for x within 128
    # (one digit) in two chunks too
    assert ops.count("MatMulInteger") == 3 + 2
    for x in (
        np.full((cin, 1, 1), 129),
        np.resize([127, 0], cin).reshape(cin, 1, 1),
        np.resize([128, 0], cin).reshape(cin, 1, 1),
    ):
        agree(write(g), [x], [])


def test_the_probe_runs_on_the_models_provider():
    # a provider that cannot run the probe model fails it, and the claim says so
    import onnxruntime as ort

    from waiexport.targets.engines.ort import OrtEngine
    from waiexport.targets.onnx.probes import SATURATION

    other = next((p for p in ort.get_available_providers() if p != "CPUExecutionProvider"), None)
    if other is None:
        pytest.skip("this onnxruntime has only its CPU provider")
    eng = OrtEngine(provider=other)
    assert eng.probe()[SATURATION] is not None
    assert "not exact, so convolutions use u8 x u8 ConvInteger" in eng.describe()["probed"]


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_matmul_path_is_exact_at_its_operand_ends(data):
    # any input range whose negation fits i32, int8 weights drawn from the ends of int8 or
    # of ±64 (base-256 digits), any kernel, stride and padding: the Gather im2col, the
    # digits and the one GEMM (the weights-first product for a signed int8 input) agree
    # with the reference on inputs at the ends of the range and of the digits
    import waiexport.targets.onnx.mac as mac

    lo = data.draw(st.sampled_from([0, -1, -128, -129, -(2**12), -(2**20), -(2**31) + 1]))
    hi = data.draw(st.sampled_from([0, 1, 127, 128, 129, 255, 256, 2**12, 2**20, 2**31 - 1]))
    cin, cout = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    kh, kw = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    ends = data.draw(
        st.sampled_from([[-128, -127, -1, 0, 1, 126, 127], [-64, -63, -1, 0, 1, 63, 64]])
    )
    w = np.array(
        data.draw(
            st.lists(
                st.sampled_from(ends), min_size=cout * cin * kh * kw, max_size=cout * cin * kh * kw
            )
        )
    ).reshape(cout, cin, kh, kw)
    stride, pad = data.draw(st.integers(1, 3)), data.draw(st.integers(0, 3))
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(cin, lo, hi),
            conv(w, stride=stride, pad=pad, rq=rq(shift=data.draw(st.integers(0, 30)))),
        )
    )
    g = b.build()
    assume(in_subset(g))
    assert _u8s8(export(write(g), ORT).prepared) == (mac.u8s8_exact() and (lo, hi) != (0, 0))
    h, wd = data.draw(st.integers(kh, kh + 4)), data.draw(st.integers(kw, kw + 4))
    n = cin * h * wd
    for x in (
        np.full(n, lo),
        np.full(n, hi),
        np.resize([lo, hi], n),
        np.array(
            data.draw(
                st.lists(
                    st.sampled_from([lo, hi, 0, 127, 128, -128, -129, 255, 256]),
                    min_size=n,
                    max_size=n,
                )
            )
        ).clip(lo, hi),
    ):
        agree(write(g), [x.reshape(cin, h, wd)], [])


def test_a_clamp_the_certificate_leaves_idle_is_left_out():
    # relu of [-100, 100] is certified [0, 100]: a clamp policy of [0, 300] or [0, 100]
    # changes no value and has no node, in ONNX and in TOSA; one of [0, 99] clips
    from waiexport.targets.tosa.export import build_tosa, operator_names

    clips, clamps = [], []
    for hi in (300, 100, 99):
        b = GraphBuilder()
        b.output(b.op("relu", b.input(2, -100, 100), policy="clamp", lo=0, hi=hi))
        g = b.build()
        clips.append([n.op_type for n in export(write(g), ORT).prepared.graph.node].count("Clip"))
        clamps.append(operator_names(build_tosa(g, [(2, 3, 3)]).data).count("MINIMUM"))
        for x in (np.full((2, 3, 3), 100), np.arange(-9, 9).reshape(2, 3, 3) * 11):
            agree(write(g), [x], [])
    assert clips == [0, 0, 1] and clamps == [0, 0, 1]


@pytest.mark.parametrize("lo, hi", [(0, 2269), (-2269, 0), (-2269, 2269)])
def test_the_x_first_digits_take_max_only_where_a_part_can_be_negative(lo, hi):
    # the sign parts max(±x, 0) need no Max where the certificate has the sign already; the
    # low digit is x AND (base − 1); each digit, its two sign parts joined, is gathered on
    # its own from one shared index (one Range an axis) in the If's branch of the whole
    # product; exact at the ends either way, and at the ends of the other branch's one digit
    import waiexport.targets.onnx.mac as mac

    rng = np.random.default_rng(hi - lo)
    b = GraphBuilder()
    b.output(b.op("conv", b.input(3, lo, hi), conv(rng.integers(-64, 64, (2, 3, 3, 3)), pad=1)))
    g = b.build()
    branch = next((n for n in export(write(g), ORT).prepared.graph.node if n.op_type == "If"), None)
    ops = (
        []
        if branch is None
        else [
            n.op_type for n in next(a.g for a in branch.attribute if a.name == "else_branch").node
        ]
    )
    assert not mac.u8s8_exact() or (
        "BitwiseAnd" in ops
        and ("Max" in ops) == (lo < 0 < hi)
        and ops.count("Range") == 2
        and ops.count("Gather") == ops.count("MatMulInteger") == 2
    ), ops
    for x in (
        np.full((3, 4, 5), lo),
        np.full((3, 4, 5), hi),
        rng.integers(lo, hi + 1, (3, 4, 5)),
        np.where(np.arange(60).reshape(3, 4, 5) % 2, lo, hi),
        np.where(np.arange(60).reshape(3, 4, 5) % 2, max(lo, -255), min(hi, 255)),
    ):
        agree(write(g), [x], [])


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_one_value_past_one_digit_takes_the_whole_product(data):
    # the x-first product's If takes its one-digit branch only where every value of the
    # input fits one u8 digit: values within it but for one past it, anywhere, at either
    # end of the range or just past the digit, are summed by the whole product, exactly
    import waiexport.targets.onnx.mac as mac

    lo, hi = data.draw(st.sampled_from([(0, 2269), (-2269, 2269), (-3000, 0), (0, 56463)]))
    cin, cout, k, stride, pad, w = _conv_case(
        data, [-64, -1, 1, 63], cout=(1, 4), k=(1, 3), pad=(0, 1)
    )
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(cin, lo, hi),
            conv(w, stride=stride, pad=pad, rq=rq(shift=data.draw(st.integers(0, 12)))),
        )
    )
    g = b.build()
    assume(in_subset(g))
    ops = [n.op_type for n in export(write(g), ORT).prepared.graph.node]
    assert not mac.u8s8_exact() or "If" in ops
    h, wd = data.draw(st.integers(k, k + 2)), data.draw(st.integers(k, k + 2))
    n = cin * h * wd
    few = st.integers(max(lo, -255), min(hi, 255))
    x = np.array(data.draw(st.lists(few, min_size=n, max_size=n)))
    x[data.draw(st.integers(0, n - 1))] = data.draw(
        st.sampled_from([v for v in (lo, hi, 256, -256) if lo <= v <= hi and abs(v) > 255])
    )
    agree(write(g), [x.reshape(cin, h, wd)], [])


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_phase_stack_stays_nhwc_from_one_gemm_to_the_next(data):
    # conv (x-first) -> pixel_shuffle -> relu -> conv (x-first): the first sum's channels are
    # folded into phase-major order, requantised, shuffled and relu'd on its NHWC twin, and
    # the second conv's digits read that twin, so no plane moves to NCHW and back between
    # the two GEMMs; a clamp policy on the first sum or on the relu clips the twin too. A
    # signed int8 input, which a conv read NCHW takes weights first, takes x first here,
    # its sign parts in one GEMM. Exact at the ends.
    import waiexport.targets.onnx.mac as mac

    r, c, cin = (
        data.draw(st.integers(2, 3)),
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(1, 3)),
    )
    k, (lo, hi) = (
        data.draw(st.sampled_from([1, 3])),
        data.draw(st.sampled_from([(0, 255), (0, 2269), (-128, 127)])),
    )
    shift = data.draw(st.integers(0, 9))
    clamp = data.draw(st.sampled_from([None, "conv", "relu"]))

    def draw(*shape):
        n = int(np.prod(shape))
        values = st.lists(st.sampled_from([-64, -1, 0, 1, 63]), min_size=n, max_size=n)
        return np.array(data.draw(values)).reshape(shape)

    def policy(where):
        return dict(policy="clamp", lo=-20, hi=200) if clamp == where else {}

    b = GraphBuilder()
    y = b.op(
        "conv",
        b.input(cin, lo, hi),
        conv(
            draw(c * r * r, cin, k, k), pad=k // 2, rq=rq(shift=shift, bias=list(range(c * r * r)))
        ),
        **policy("conv"),
    )
    y = b.op("relu", b.op("pixel_shuffle", y, P.Factor(r)), **policy("relu"))
    b.output(b.op("conv", y, conv(draw(2, c, 3, 3), pad=1, rq=rq(shift=2))))
    g = b.build()
    assume(in_subset(g) and mac.u8s8_exact())
    model = export(write(g), ORT).prepared
    moves = [
        tuple(a.ints) for n in model.graph.node if n.op_type == "Transpose" for a in n.attribute
    ]
    shuffle = moves.index((0, 1, 3, 2, 4, 5))  # the shuffle, on the first sum's twin
    assert (0, 3, 1, 2) not in moves[:shuffle], moves
    assert moves[shuffle + 1 :] == [(0, 3, 1, 2)], moves  # then only the second sum's to NCHW
    rng = np.random.default_rng(shift)
    for x in (
        np.full((cin, 4, 3), lo),
        np.full((cin, 4, 3), hi),
        np.where(np.arange(cin * 12).reshape(cin, 4, 3) % 2, lo, hi),
        rng.integers(lo, hi + 1, (cin, 4, 3)),
    ):
        agree(write(g), [x], [])


def test_the_self_check_opens_its_model_once_for_every_decode(monkeypatch):
    # a session of a large model takes milliseconds to open; its decodes share one
    import onnxruntime as ort
    from waiexport.targets.exporter import self_check

    opened = []
    real = ort.InferenceSession.__init__
    monkeypatch.setattr(
        ort.InferenceSession,
        "__init__",
        lambda self, *a, **k: opened.append(1) or real(self, *a, **k),
    )
    b = GraphBuilder()
    b.output(b.op("conv", b.input(2, -128, 127), conv(np.ones((2, 2, 3, 3), int), pad=1)))
    exp = export(write(b.build()), target("ort-cpu"))
    opened.clear()
    assert self_check(exp) == (4, None) and len(opened) == 1


@pytest.mark.parametrize(
    "returns,said",
    [([np.zeros(1, np.int64)], "output 0 differs"), ([], "0 outputs, where the graph has 1")],
)
def test_the_self_check_on_an_engine_takes_no_broadcast_value_or_missing_output(returns, said):
    # a relu of negative inputs is 0 everywhere: one 0 broadcast over it compared equal
    from waiexport.targets.exporter import self_check

    b = GraphBuilder()
    b.output(b.op("relu", b.input(2, -128, -1)))
    exp = export(write(b.build()), ORT)

    class Double:
        def load(self, data):
            return self

        def decode(self, inputs, scalars):
            return returns

    n, found = self_check(exp, engine=Double())
    assert found is not None and said in found, found
