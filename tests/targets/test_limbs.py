"""The int32 limbs of :mod:`waiexport.targets.onnx.limbs` against Python's integers, the
second, literal implementation: a requantisation ``R_mode(t·m, s)`` of int32 operands (§5.1,
§7.1's ``product``), formed with the operators OpenVINO's description
allows (divisions by bits), run on onnxruntime, whose int32
arithmetic is exact where nothing wraps (and every limb's interval is checked not to).
Worst cases: the int32 ends, shifts at and past each limb's edge, every tie."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper

from waiexport.descriptions import target
from waiexport.targets.onnx import limbs
from waiexport.targets.onnx.emit import I32, Emitter
from waiexport.targets.onnx.probes import typed_nodes
from waiexport.reference.integer import r_round

from _helpers import examples, needs

ort = needs("onnxruntime", "ort")

LO, HI = -(1 << 31), (1 << 31) - 1
ENDS = [LO, LO + 1, -(1 << 30), -(1 << 15) - 1, -(1 << 15), -1, 0, 1, (1 << 15) - 1, 1 << 15]
ENDS += [(1 << 30) + 1, HI - 1, HI]
#: A runtime's facts: OpenVINO's (int32 Div and Mod through float, int64 narrowed).
FACTS = target("openvino-cpu")
SHIFTS = [0, 1, 14, 15, 16, 29, 30, 31, 32, 44, 45, 46, 47, 62, 63]


def _run(e: Emitter, x: str, out: str, feed: np.ndarray) -> np.ndarray:
    graph = helper.make_graph(
        e.nodes,
        "limbs",
        [helper.make_tensor_value_info(x, I32, list(feed.shape))],
        [helper.make_tensor_value_info(out, I32, None)],
        e.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    for _, op, dtype in typed_nodes(model):
        assert e.target.options.cannot(op, dtype) is None, (op, dtype)
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), opts, ["CPUExecutionProvider"])
    return session.run([out], {x: feed})[0]


def _emitter() -> Emitter:
    e = Emitter()
    e.target = FACTS
    return e


def _values(draw_list) -> np.ndarray:
    return np.array(draw_list, dtype=np.int32).reshape(1, 1, 1, -1)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_product_past_32_bits_rounds_as_python_s_integers(data):
    ints = st.one_of(st.sampled_from(ENDS), st.integers(LO, HI))
    m = data.draw(ints, label="m")
    s = data.draw(st.one_of(st.sampled_from(SHIFTS), st.integers(0, 63)), label="s")
    mode = data.draw(st.sampled_from(["floor", "half_up", "half_even"]), label="mode")
    t = data.draw(st.lists(ints, min_size=1, max_size=12), label="t")
    if s and m:  # the products just each side of a tie, where they are int32 values
        half = 1 << (s - 1)
        t += [
            v for k in (-3, -1, 1, 3) for v in (k * half // m, k * half // m + 1) if LO <= v <= HI
        ]
    want = [r_round(v * m, s, mode) for v in t]
    fits = [LO <= w <= HI for w in want]
    t, want = [v for v, f in zip(t, fits) if f], [w for w, f in zip(want, fits) if f]
    if not t:
        return
    e = _emitter()
    out = limbs.rounded(e, limbs.split(e, "x"), limbs.constants(e, [m]), s, mode, "x")
    got = _run(e, "x", out, _values(t))
    assert got.reshape(-1).tolist() == want
