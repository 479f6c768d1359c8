"""onnxruntime as an ``acc64`` fabric (§7.3): the 128-bit limbs against Python integers, every
acc64-only operator against the reference at the ends the issue names, internal ``check``
refusals, and no floating-point type in any acc64 model."""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from waiexport import Refusal, write
from waiexport import params as P
from waiexport.builder import GraphBuilder, rq
from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import files_under, read_all
from waiexport.descriptions import target
from waiexport.targets.engines import engine
from waiexport.targets.exporter import export
from waiexport.targets.onnx import wide as W
from waiexport.targets.onnx.emit import I64, Emitter
from waiexport.targets.onnx.export import check_integer_only

from _helpers import agree, checked, examples, needs, verdict

ort = needs("onnxruntime", "ort")

FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
ends = st.one_of(
    st.sampled_from(
        [
            I64_MIN,
            I64_MAX,
            I64_MIN + 1,
            -1,
            0,
            1,
            2**62,
            -(2**62),
            2**31,
            -(2**31),
            2**30 - 1,
            2**30,
        ]
    ),
    st.integers(I64_MIN, I64_MAX),
)


def _run(build, x, y):
    """``build(e, "x", "y")``'s limbs on onnxruntime, as Python integers."""
    e = Emitter()
    outs = build(e, "x", "y")
    outs = outs if isinstance(outs, list) else [outs]
    nodes = e.nodes + [helper.make_node("Identity", [o], [f"o{k}"]) for k, o in enumerate(outs)]
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, I64, None) for n in "xy"],
        [helper.make_tensor_value_info(f"o{k}", I64, None) for k in range(len(outs))],
        e.inits,
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    got = s.run(None, {"x": np.array(x, np.int64), "y": np.array(y, np.int64)})
    return (
        [sum(int(limb[i]) << (30 * k) for k, limb in enumerate(got)) for i in range(len(x))]
        if len(got) == W.LIMBS
        else [int(v) for v in got[0]]
    )


@FAST
@given(
    pairs=st.lists(st.tuples(ends, ends), min_size=1, max_size=8),
    s=st.sampled_from([0, 1, 29, 30, 31, 60, 62, 63, 64, 90, 119, 120, 126, 127]),
)
@example(pairs=[(I64_MIN, I64_MIN)], s=63)  # (−2^63)² >> 63 = 2^63, which int64 cannot hold
def test_products_and_floor_shifts_at_the_2_127_scale_ends(pairs, s):
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    assert _run(lambda e, x, y: W.product(e, x, y), xs, ys) == [a * b for a, b in pairs]
    quotients = [(a * b) >> s for a, b in pairs]
    assert _run(lambda e, x, y: W.floor_shift(e, W.product(e, x, y), s), xs, ys) == quotients
    # narrow's precondition is the certificate's: every quotient fits int64
    if all(I64_MIN <= q <= I64_MAX for q in quotients):
        assert (
            _run(lambda e, x, y: W.narrow(e, W.floor_shift(e, W.product(e, x, y), s)), xs, ys)
            == quotients
        )


def test_a_quotient_of_2_63_is_refused_never_narrowed():
    # (−2^63)·(−2^63) >> 63 = 2^63: rq.q's interval passes int64, so acc64 refuses the graph
    # at load and no lowering is asked to narrow it
    g = _one("rescale", P.Rescale(rq(mult=I64_MIN, shift=63)), I64_MIN, I64_MAX)
    assert not verdict(g)["acc64"]
    with pytest.raises(Refusal, match="model_mismatch"):
        export(write(g), target("ort-cpu-acc64"))
    with pytest.raises(Refusal, match="model_mismatch"):
        engine("ort-cpu-acc64").load(write(g))


@FAST
@given(
    xs=st.lists(ends, min_size=1, max_size=8),
    d=st.integers(1, 2**31),
    k=st.integers(-(2**64) + 1, 2**64 - 1),
)
def test_sums_and_long_division(xs, d, k):
    want = [a * a + k for a in xs]
    got = _run(lambda e, x, y: W.add(e, W.product(e, x, x), W.from_const(e, k)), xs, xs)
    assert got == want
    q = _run(
        lambda e, x, y: W.floor_divide(e, W.add(e, W.product(e, x, x), W.from_const(e, k)), d)[0],
        xs,
        xs,
    )
    assert q == [v // d for v in want]


def same(g, inputs, scalars=()):
    """The reference and the acc64 engine agree: the same outputs or the same code."""
    return agree(write(g), inputs, list(scalars), engine("ort-cpu-acc64"))


def _one(name, params, lo, hi, c=1, **kw):
    b = GraphBuilder()
    b.output(b.op(name, b.input(c, lo, hi, max_h=4, max_w=16), params, **kw))
    return b.build()


def test_exp_neg_q16_at_n_62_and_63():
    # n = ⌊−x / 45426⌋: 62 keeps a value, 63 is 0
    xs = [-45426 * 62, -45426 * 62 - 45425, -45426 * 63, -45426 * 63 + 1, 0, -1]
    g = _one("softmax", P.NoParams(), -45426 * 64, 0)
    same(g, [np.array([[xs]])])
    g = _one("sigmoid", P.NoParams(), -45426 * 64, 45426 * 64)
    same(g, [np.array([[xs + [-x for x in xs]]])])


@FAST
@given(data=st.data())
def test_sigmoid_and_elu_down_to_minus_2_63_plus_1(data):
    lo = -(2**63) + 1
    alpha = data.draw(st.sampled_from([1, -1, 2**40, -(2**62), 2**63 - 1]))
    xs = [lo, lo + 1, -1, 0, 1, 2**63 - 1] + data.draw(
        st.lists(st.integers(lo, 2**63 - 1), max_size=6)
    )
    x = np.array([[xs]])
    same(_one("sigmoid", P.NoParams(), lo, 2**63 - 1), [x])
    same(_one("elu", P.Elu(alpha), lo, 2**63 - 1), [x])


@FAST
@given(data=st.data())
def test_softmax_rows_that_do_not_sum_to_2_16(data):
    w = data.draw(st.integers(1, 9))
    rows = np.array(
        data.draw(
            st.lists(
                st.lists(st.integers(-(2**40), 2**40), min_size=w, max_size=w),
                min_size=1,
                max_size=3,
            )
        )
    )
    g = _one("softmax", P.NoParams(), -(2**40), 2**40)
    out = same(g, [rows[None]])
    assert all(0 <= v <= 2**16 for row in out[0][0] for v in row)


@FAST
@given(c=st.integers(1, 6), eps=st.sampled_from([1, 3, 2**63, 2**64 - 1]), data=st.data())
def test_layernorm_c_and_l2norm_with_epsilon_to_2_64_minus_1(c, eps, data):
    # odd and even C, a mean that is a half (C − 1 values at the top, one just below),
    # V + ε past 2^64, and random planes
    from waiexport.builder import layernorm

    top = 2**40
    gamma = data.draw(st.lists(st.integers(-(2**20), 2**20), min_size=c, max_size=c))
    g = _one("layernorm_c", layernorm(gamma, [-7] * c, eps=eps), -top, top, c=c)
    x = np.array(data.draw(st.lists(st.integers(-top, top), min_size=c * 6, max_size=c * 6)))
    x = x.reshape(c, 2, 3)
    x[:, 0, 0] = [top] * (c - 1) + [top - 1]
    x[:, 1, 2] = -top
    same(g, [x])
    same(_one("l2norm", P.L2Norm(eps), -top, top, c=c), [x])


@pytest.mark.parametrize("first", [True, False])
def test_an_internal_check_refuses_and_returns_nothing(first):
    g = checked(first)
    assert same(g, [np.array([[[10, -50, 150]]])]) == [[[[5, 0, 75]]]]
    bad = np.array([[[10, -250 if first else 0, 240]]])
    assert same(g, [bad]) == "field_range"
    with pytest.raises(Refusal, match="field_range"):
        engine("ort-cpu-acc64").load(write(g)).run([bad], [])


def test_no_acc64_model_holds_a_floating_point_type():
    walked = 0
    for _, vectors in read_all(files_under([CORPUS / "vectors", CORPUS / "graphs"])):
        for v in vectors:
            if v["load"] != "ok":
                continue
            model = export(v["graph_bytes"], target("ort-cpu-acc64")).prepared
            check_integer_only(model)
            types = {i.type.tensor_type.elem_type for i in model.graph.input}
            assert TensorProto.INT32 not in types and TensorProto.FLOAT not in types
            walked += 1
    assert walked > 100


def test_the_engine_passes_every_graph_vector():
    from waiexport.conformance.validate import validate

    files = files_under([CORPUS / "vectors", CORPUS / "graphs"])
    results = validate(engine("ort-cpu-acc64"), files)
    assert {r.status for r in results} == {"pass"}, [
        r.reason for r in results if r.status != "pass"
    ][:3]


@FAST
@given(
    xs=st.lists(ends, min_size=1, max_size=8),
    s=st.sampled_from([0, 1, 62, 63, 64, 100, 124, 125, 126, 127]),
)
def test_the_int64_floor_shift_by_every_shift_wai_ops_allows(xs, s):
    # past 62 it divided twice, the second time by 2^(s − 62): 2^63 was read back as −2^63
    # (125), and past it the constant raised OverflowError (126, 127)
    from waiexport.targets.onnx.requant import floor_shift

    assert _run(lambda e, x, y: floor_shift(e, x, [s]), xs, xs) == [x >> s for x in xs]


@pytest.mark.parametrize("gf, frac", [(64, 0), (125, 0), (127, 0), (0, 125), (0, 127), (127, 127)])
def test_igdn_whose_shifts_pass_63_on_int64_values(gf, frac):
    # small values take the int64 path: a negative term floored to 0, not −1, at gf 125 (a
    # wrong output: isqrt(1) for isqrt(0)); an export that raised at 126 and 127
    from waiexport.builder import igdn

    g = _one(
        "igdn",
        igdn(np.array([[-5, 0], [0, 3]]), np.array([1, 1]), gf=gf, frac=frac),
        -100,
        100,
        c=2,
    )
    same(g, [np.array([[[-7, 0, 5]], [[-3, 9, 0]]])])


@pytest.mark.parametrize(
    "value, want",
    [(256, "field_range"), (-512, "field_range"), (255, "field_range"), (5, [[[[5, 5], [5, 5]]]])],
)
def test_a_checked_conv_transpose_output_moves_unclamped(value, want):
    # its range [−10, 10] fits an int8, its sums do not: the phases' interleave ran on int8,
    # so a sum of 256 reached the host's check as 0 and passed (a differential run's mutant;
    # the corpus's vector of it, whose padding past the kernel keeps it from the phase rewrite)
    from waiexport.conformance.cases.conv_transpose import conv_transpose_check_past_8_bits

    assert same(conv_transpose_check_past_8_bits().graph, [np.full((1, 3, 3), value)]) == want


@settings(FAST, max_examples=examples(15))
@given(c=st.integers(1, 3), top=st.sampled_from([2**31, 2**40, 2**50]), data=st.data())
def test_igdn_with_intermediates_past_64_bits(c, top, data):
    # x² past 2^62, γ·x² past 2^64, N's sums and x·r past 2^64: every step wide
    from waiexport.builder import igdn

    gamma = np.array(
        data.draw(st.lists(st.integers(-(2**30), 2**40), min_size=c * c, max_size=c * c))
    ).reshape(c, c)
    beta = data.draw(st.lists(st.integers(-(2**62), 2**62), min_size=c, max_size=c))
    g = _one("igdn", igdn(gamma, beta, gf=data.draw(st.integers(0, 40)), frac=64), -top, top, c=c)
    if not verdict(g)["acc64"]:
        return
    x = np.array(
        data.draw(
            st.lists(
                st.sampled_from([-top, top, 0, 1, -1, top - 1]), min_size=c * 4, max_size=c * 4
            )
        )
    ).reshape(c, 2, 2)
    same(g, [x])


from waiexport.optable import OPS  # noqa: E402

from _strategies import MID, case  # noqa: E402


@pytest.mark.parametrize("name", sorted(op.name for op in OPS))
@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_acc64_graph_of_every_operator_is_bit_exact(name, data):
    # parameters and ranges anywhere wai-ops/1 allows (64-bit values, shifts to 127,
    # multipliers and biases to the i64 ends), kept where the graph meets acc64
    from hypothesis import assume

    from waiexport.probes import probe_inputs

    # the products of two tensors (mul, gram, apply) meet acc64 only on narrower values
    r = dict(MID, values=(-(2**28), 2**28)) if name in ("apply", "gram", "mul") else MID
    g, inputs, scalars = data.draw(case(name, r))
    assume(verdict(g)["acc64"])
    fabric = engine("ort-cpu-acc64")  # one engine: its load is cached by digest
    for xs, ss in [(inputs, scalars), *probe_inputs(g)]:
        agree(write(g), xs, ss, fabric)
