"""The int64 requantisation with no constant past int32 (tract's: its runtime narrows one,
``WIDE_CONSTANT``), floor shifts in steps of at most 30 bits, against Python's integers, the
second, literal implementation: ``R_mode(t·m, s)`` of int32 operands (§5.1, §7.1's
``product``), per-channel shifts 0 to 63, formed with the operators tract's description
allows (no int64 ``Mod``, no constant past int32, checked node by node), run on onnxruntime,
whose int64 arithmetic is exact where nothing wraps. Worst cases: the int32 ends, shifts at
and past each 30-bit step's edge, every tie."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper

from waiexport.descriptions import target
from waiexport.reference.integer import r_round
from waiexport.targets.onnx.emit import I32, I64, Emitter
from waiexport.targets.onnx.probes import WIDE_CONSTANT, typed_nodes
from waiexport.targets.onnx.requant import requantise

from _helpers import examples, needs

ort = needs("onnxruntime", "ort")

LO, HI = -(1 << 31), (1 << 31) - 1
ENDS = [LO, LO + 1, -(1 << 30), -1, 0, 1, (1 << 30) + 1, HI - 1, HI]
SHIFTS = [0, 1, 29, 30, 31, 32, 59, 60, 61, 62, 63]
TRACT = target("tract")


def _run(e: Emitter, out: str, t: np.ndarray) -> np.ndarray:
    graph = helper.make_graph(
        e.nodes,
        "stepped",
        [helper.make_tensor_value_info("x", I32, list(t.shape))],
        [helper.make_tensor_value_info(out, I32, None)],
        e.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    used = typed_nodes(model)
    assert all(TRACT.options.cannot(op, dtype) is None for _, op, dtype in used), used
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), opts, ["CPUExecutionProvider"])
    return session.run([out], {"x": t})[0]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_product_past_32_bits_rounds_as_python_s_integers_with_small_constants(data):
    ints = st.one_of(st.sampled_from(ENDS), st.integers(LO, HI))
    m = data.draw(ints, label="m")
    shifts = data.draw(
        st.lists(st.one_of(st.sampled_from(SHIFTS), st.integers(0, 63)), min_size=1, max_size=3),
        label="shifts",
    )
    mode = data.draw(st.sampled_from(["floor", "half_up", "half_even"]), label="mode")
    t = data.draw(st.lists(ints, min_size=1, max_size=8), label="t")
    for s in shifts:  # the products just each side of a tie
        if s and m:
            half = 1 << (s - 1)
            t += [v for k in (-3, -1, 1, 3) for v in (k * half // m, k * half // m + 1)]
    t = [v for v in t if LO <= v <= HI]
    want = np.array([[r_round(v * m, s, mode) for v in t] for s in shifts], dtype=object)
    e = Emitter()
    e.target = TRACT
    y = requantise(e, e.cast("x", I64), round=mode, shifts=shifts, mult=[m] * len(shifts))
    out = e.node("Clip", [y, e.const(LO, I64), e.const(HI, I64)])
    got = _run(e, e.cast(out, I32), np.tile(np.array(t, np.int32), (1, len(shifts), 1, 1)))
    assert got.reshape(len(shifts), -1).tolist() == np.clip(want, LO, HI).tolist()


def test_a_constant_past_int32_is_named_where_it_is_a_value_not_an_address():
    e = Emitter()
    wide = e.node("Add", [e.cast("x", I64), e.const(1 << 31, I64)])
    window = e.slice(e.const(np.arange(4), I64), [1], [(1 << 63) - 1], [0])
    graph = helper.make_graph(
        e.nodes,
        "wide",
        [helper.make_tensor_value_info("x", I32, [1, 1, 1, 4])],
        [helper.make_tensor_value_info(n, I64, None) for n in (wide, window)],
        e.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    named = [(name, op) for name, op, _ in typed_nodes(model) if op == WIDE_CONSTANT]
    assert [op for _, op in named] == [WIDE_CONSTANT]
    assert named[0][0] == next(n.name for n in e.nodes if n.output[0] == wide)


def test_spread_scalars_keeps_every_value_and_leaves_no_one_element_operand():
    # tract's description spreads a Mul's or Div's one-element constant to the shape of the
    # operand beside it; the model computes what it computed before
    t = np.array([LO, LO + 1, -(1 << 30), -1, 0, 1, HI], np.int32).reshape(1, 1, 1, -1)
    outs = []
    for spread in (False, True):
        e = Emitter()
        e.target = TRACT
        y = requantise(e, e.cast("x", I64), round="half_even", shifts=[33], mult=[-12345])
        out = e.cast(e.node("Clip", [y, e.const(LO, I64), e.const(HI, I64)]), I32)
        if spread:
            e.spread_scalars()
            single = {i.name for i in e.inits if int(np.prod(i.dims)) == 1}
            for n in e.nodes:
                if n.op_type in ("Mul", "Div"):
                    assert not single & set(n.input), n
        outs.append(_run(e, out, t))
    assert outs[1].tolist() == outs[0].tolist()
    want = [r_round(v * -12345, 33, "half_even") for v in t.reshape(-1).tolist()]
    assert outs[1].reshape(-1).tolist() == want
