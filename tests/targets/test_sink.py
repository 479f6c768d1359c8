"""Joins moved below the elementwise steps after them (``targets/onnx/sink.py``): the same
integers on onnxruntime, the join reading the steps' narrow result, and no move where a
constant varies along another axis than the join's or a step's input has another reader."""

import numpy as np
import onnx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from waiexport.targets.onnx.sink import sunk

from _helpers import examples, needs

ort = needs("onnxruntime", "ort")

I32, I8 = TensorProto.INT32, TensorProto.INT8


def _run(model: onnx.ModelProto, feed: dict) -> list:
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, feed
    )


def _model(nodes, inputs, consts: dict, outputs) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, I32, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


def _steps(c: int, rng, shape=(-1,)) -> tuple[list, dict]:
    """A requantisation's shape on ``c`` channels: ``+ b``, ``/ 2^s``, ``− lift``, a clamp to
    int8 and the cast to it, each constant one value or one a channel."""
    consts = {
        "b": rng.integers(-999, 999, c).reshape(shape).astype(np.int32),
        "d": np.array(1 << int(rng.integers(0, 9)), np.int32),
        "l": rng.integers(-9, 9, c).reshape(shape).astype(np.int32),
        "lo": np.array(-128, np.int32),
        "hi": np.array(127, np.int32),
    }
    return [
        helper.make_node("Add", ["j", "b"], ["s1"]),
        helper.make_node("Div", ["s1", "d"], ["s2"]),
        helper.make_node("Sub", ["s2", "l"], ["s3"]),
        helper.make_node("Clip", ["s3", "lo", "hi"], ["s4"]),
        helper.make_node("Cast", ["s4"], ["y"], to=I8),
    ], consts


def _producers(model) -> dict:
    return {o: n for n in model.graph.node for o in n.output}


@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    sizes=st.lists(st.integers(1, 4), min_size=2, max_size=3),
    rows=st.integers(1, 5),
    reshape=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_the_parts_run_the_steps_then_join_as_int8(sizes, rows, reshape, seed):
    rng = np.random.default_rng(seed)
    c = sum(sizes)
    parts = [f"p{k}" for k in range(len(sizes))]
    steps, consts = _steps(c, rng, (1, 1, 1, c) if reshape else (c,))
    nodes = [helper.make_node("Concat", parts, ["j0" if reshape else "j"], axis=1)]
    if reshape:  # the x-first sum's [Ho·Wo, C] made [1, Ho, Wo, C] between join and steps
        consts["shape"] = np.array([1, rows, 1, c], np.int64)
        nodes.append(helper.make_node("Reshape", ["j0", "shape"], ["j"]))
    model = _model(
        nodes + steps, [(p, [rows, n]) for p, n in zip(parts, sizes)], consts, [("y", I8)]
    )
    feed = {
        p: rng.integers(-(2**20), 2**20, (rows, n)).astype(np.int32) for p, n in zip(parts, sizes)
    }
    want = _run(model, feed)
    moved = sunk(model)
    made = _producers(moved)
    join = next(
        n
        for n in moved.graph.node
        if n.op_type == "Concat" and n.input[0] in made and made[n.input[0]].op_type == "Cast"
    )
    assert all(made[p].op_type == "Cast" for p in join.input)
    assert [a.tolist() for a in _run(moved, feed)] == [a.tolist() for a in want]


@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_slices_of_one_tensor_run_the_steps_on_it_whole(data):
    # the shared window's groups: each a shifted window and a run of the channels; the
    # steps run on the whole grid, the slices cut the int8 result
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    h, w = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=2, max_size=4))
    c, edges = sum(sizes), np.cumsum([0, *sizes]).tolist()
    steps, consts = _steps(c, rng)
    nodes, parts = [], []
    for k in range(len(sizes)):
        y, x = data.draw(st.integers(0, 1)), data.draw(st.integers(0, 1))
        consts.update(
            {
                f"a{k}": np.array([y, x, edges[k]], np.int64),
                f"z{k}": np.array([y + h, x + w, edges[k + 1]], np.int64),
                "axes": np.array([1, 2, 3], np.int64),
            }
        )
        nodes.append(helper.make_node("Slice", ["x", f"a{k}", f"z{k}", "axes"], [f"q{k}"]))
        parts.append(f"q{k}")
    nodes.append(helper.make_node("Concat", parts, ["j"], axis=3))
    model = _model(nodes + steps, [("x", [1, h + 1, w + 1, c])], consts, [("y", I8)])
    feed = {"x": rng.integers(-(2**20), 2**20, (1, h + 1, w + 1, c)).astype(np.int32)}
    want = _run(model, feed)
    moved = sunk(model)
    made = _producers(moved)
    assert all(made[n.input[0]].op_type == "Cast" for n in moved.graph.node if n.op_type == "Slice")
    assert [a.tolist() for a in _run(moved, feed)] == [a.tolist() for a in want]


def test_a_division_that_could_trap_runs_on_the_parts_only():
    # the whole grid holds positions no part keeps; a Div by -1 there could meet -2^31
    rng = np.random.default_rng(1)
    steps, consts = _steps(2, rng)
    consts["d"] = np.array(-1, np.int32)
    consts.update(
        {
            "a0": np.array([0, 0], np.int64),
            "z0": np.array([1, 1], np.int64),
            "a1": np.array([1, 1], np.int64),
            "z1": np.array([2, 2], np.int64),
            "axes": np.array([1, 2], np.int64),
        }
    )
    nodes = [
        helper.make_node("Slice", ["x", f"a{k}", f"z{k}", "axes"], [f"q{k}"]) for k in range(2)
    ] + [helper.make_node("Concat", ["q0", "q1"], ["j"], axis=2)]
    model = _model(nodes + steps, [("x", [1, 2, 2, 2])], consts, [("y", I8)])
    moved = sunk(model)
    assert not any(n.name.endswith("_whole") for n in moved.graph.node)


def test_no_move_past_a_constant_along_another_axis_or_a_second_reader():
    rng = np.random.default_rng(2)
    steps, consts = _steps(3, rng)
    consts["b"] = rng.integers(-9, 9, (1, 3, 1)).astype(np.int32)  # along axis 1, not 2
    nodes = [helper.make_node("Concat", ["p0", "p1"], ["j"], axis=1)] + steps
    model = _model(nodes, [("p0", [1, 1, 3]), ("p1", [1, 2, 3])], consts, [("y", I8)])
    assert [n.op_type for n in sunk(model).graph.node][0] == "Concat"
    steps, consts = _steps(3, rng)
    nodes = [helper.make_node("Concat", ["p0", "p1"], ["j"], axis=1)] + steps
    model = _model(nodes, [("p0", [2, 1]), ("p1", [2, 2])], consts, [("y", I8), ("s2", I32)])
    kinds = [n.op_type for n in sunk(model).graph.node]  # s2 is an output: two steps move
    assert kinds.index("Concat") == kinds.index("Sub") - 1 and kinds.count("Div") == 2
