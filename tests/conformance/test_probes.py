"""Probes of the runtime under test: each failure class has a double of onnxruntime that
makes exactly that mistake, and the probe that names it finds it; a model that uses a
wrongly probed operator gets no claim, and onnxruntime itself passes every probe."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from waiexport import write
from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import files_under, report, validate
from waiexport.targets.engines.base import ModelEngine
from waiexport.targets.errors import NotForEngine
from waiexport.targets.engines.ort import CPU, OrtEngine, OrtRuntime
from waiexport.targets.onnx.probes import (
    CLAMP,
    FLOAT32,
    FOLDED,
    FUSED,
    NARROWED,
    NEAREST,
    PROBES,
    SPLIT_CLAMP,
    SUM_TREE,
    VIEWED,
    VIEWS,
    WRITTEN,
    clamp_patterns,
    folded_patterns,
    view_patterns,
)

from _helpers import clamped_fill, with_extra


def _without(pattern: str):
    """openvino-cpu's ONNX options less the inexact pattern ``pattern``: a description that
    forgot it."""
    from dataclasses import replace

    from waiexport.descriptions import TARGETS

    options = TARGETS["openvino-cpu"].options
    return replace(options, inexact=tuple(f for f in options.inexact if f[0][0] != pattern))


F32, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


def _through(model, op: str, dtype: int, via: int, then=None):
    """``model`` with every ``op`` node computed through ``via``: its inputs cast to ``via``,
    the node (followed by ``then``, a node type, where given), its output cast back to
    ``dtype``."""
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {
        v.name: v.type.tensor_type.elem_type
        for v in list(inferred.graph.value_info) + list(inferred.graph.input)
    }
    types.update({t.name: t.data_type for t in model.graph.initializer})
    nodes = []
    for k, n in enumerate(model.graph.node):
        if n.op_type != op or types.get(n.input[0]) not in (
            dtype,
            TensorProto.UINT8,
            TensorProto.INT8,
        ):
            nodes.append(n)
            continue
        ins = []
        for j, name in enumerate(n.input):
            nodes.append(helper.make_node("Cast", [name], [f"{op}{k}_{j}"], to=via))
            ins.append(f"{op}{k}_{j}")
        kind = {"MatMulInteger": "MatMul", "ConvInteger": "Conv"}.get(op, op)
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        nodes.append(
            helper.make_node(kind, ins[:2] if op != kind else ins, [f"{op}{k}_v"], **attrs)
        )
        last = f"{op}{k}_v"
        if then:
            nodes.append(helper.make_node(then, [last], [f"{op}{k}_r"]))
            last = f"{op}{k}_r"
        nodes.append(helper.make_node("Cast", [last], [n.output[0]], to=dtype))
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out


def _fused_clamp(model):
    """``model`` with each ``Min`` of a constant bound read directly by a ``Max`` of one (a
    clamp's pair) computed as one float32 ``Clip``, the input and both bounds cast to
    float32, as OpenVINO 2026.4.1's compiler fuses them."""
    consts = {t.name for t in model.graph.initializer}
    made = {o: n for n in model.graph.node for o in n.output}
    nodes = []
    for k, n in enumerate(model.graph.node):
        src = made.get(n.input[0])
        if not (
            n.op_type == "Max"
            and n.input[1] in consts
            and src is not None
            and src.op_type == "Min"
            and src.input[1] in consts
        ):
            nodes.append(n)
            continue
        f = [f"clamp{k}_{j}" for j in range(4)]
        nodes += [
            helper.make_node("Cast", [src.input[0]], [f[0]], to=F32),
            helper.make_node("Cast", [n.input[1]], [f[1]], to=F32),
            helper.make_node("Cast", [src.input[1]], [f[2]], to=F32),
            helper.make_node("Clip", f[:3], [f[3]]),
            helper.make_node("Cast", [f[3]], [n.output[0]], to=I32),
        ]
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out


def _from_start(model):
    """``model`` with each ``Split`` that has its sizes read as views from the tensor's
    start: output ``k`` is the first ``sizes[k]`` along the axis, wherever it was cut."""
    nodes, inits = [], []
    for k, n in enumerate(model.graph.node):
        if n.op_type != "Split" or len(n.input) < 2:
            nodes.append(n)
            continue
        axis = next((a.i for a in n.attribute if a.name == "axis"), 0)
        zero, ax = f"start{k}", f"axis{k}"
        inits += [helper.make_tensor(zero, I64, [1], [0]), helper.make_tensor(ax, I64, [1], [axis])]
        for j, out in enumerate(n.output):
            at, to, end = f"at{k}_{j}", f"to{k}_{j}", f"end{k}_{j}"
            inits += [
                helper.make_tensor(at, I64, [1], [j]),
                helper.make_tensor(to, I64, [1], [j + 1]),
            ]
            nodes += [
                helper.make_node("Slice", [n.input[1], at, to], [end]),
                helper.make_node("Slice", [n.input[0], zero, end, ax], [out]),
            ]
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    out.graph.initializer.extend(inits)
    return out


MISTAKES = {
    FLOAT32: lambda m: _through(_through(m, "MatMulInteger", I32, F32), "ConvInteger", I32, F32),
    NARROWED: lambda m: _through(_through(m, "Mul", I64, I32), "Add", I64, I32),
    NEAREST: lambda m: _through(m, "Div", I32, F32, then="Round"),
    FUSED: _fused_clamp,
    WRITTEN: lambda m: m,  # its runner makes the mistake (:func:`_written`)
    SUM_TREE: lambda m: _through(m, "Add", I32, F32),
    VIEWED: _from_start,
}


def _written(run, model):
    """``run`` of ``model`` as a runtime that writes each result into the constant it folded
    from an ``Expand`` a bitwise operator reads: there, each run's outputs are the sum of every
    run's so far (OpenVINO 2026.4.1 at fixed shapes, :data:`FOLDED`)."""
    if not folded_patterns(model):
        return run
    kept: dict = {}

    def written(feed):
        for k, v in run(feed).items():
            kept[k] = kept[k] + v if k in kept else v
        return dict(kept)

    return written


class Mistaken(ModelEngine):
    """onnxruntime running every model (probes included) with one named mistake."""

    joins_probes = True

    def __init__(self, failure: str, target: str = "ort-cpu"):
        self.name, self.failure = f"double-{failure.split()[0]}", failure
        super().__init__(target)

    def open(self, model):
        import onnxruntime as ort

        proto = MISTAKES[self.failure](onnx.load_from_string(model.data))
        session = ort.InferenceSession(
            proto.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        names = [o.name for o in session.get_outputs()]

        def run(feed):
            return dict(zip(names, session.run(names, feed)))

        return _written(run, proto) if self.failure == WRITTEN else run


def test_onnxruntime_passes_every_probe():
    found = OrtEngine().probe()
    assert len(found) == len(PROBES) and not any(found.values()), found


@pytest.mark.parametrize(
    "failure, ops",
    [(FLOAT32, ("MatMulInteger", "ConvInteger")), (NARROWED, ("Mul", "Add")), (NEAREST, ("Div",))],
)
@with_extra("onnxruntime", "ort")
def test_each_failure_class_is_named_by_its_probe_and_means_no_claim(failure, ops):
    eng = Mistaken(failure)
    wrong = {name: w for name, w in eng.probe().items() if w}
    assert any(
        name == p.name for name in wrong for p in PROBES if p.op in ops and p.failure == failure
    ), wrong
    # the double's ops alone: each wrong probe runs one of them (a chain, through its Mul)
    by_name = {p.name: p for p in PROBES}
    assert all(any(n[0] in ops for n in by_name[name].nodes) for name in wrong), wrong
    results = validate(
        eng, files_under([CORPUS / "vectors" / "conv.jsonl", CORPUS / "vectors" / "rescale.jsonl"])
    )
    failed = [r for r in results if r.status == "fail"]
    assert failed and all("nothing here is claimed" in r.reason for r in failed)
    assert any(failure in r.reason for r in failed)
    assert report(eng, results)["claim"] is None
    assert failure in eng.probed()


@pytest.mark.parametrize("failure", list(MISTAKES))
def test_a_probe_wrong_in_the_joined_model_says_what_its_own_run_says(failure):
    eng = Mistaken(failure)
    wrong = {name: w for name, w in eng.probe().items() if w}
    assert wrong and wrong == {name: eng.probe_one(name) for name in wrong}


class Opened(ModelEngine):
    """onnxruntime, counting the models it opens; with ``declines``, it declines a model of
    more than one output, as a runtime without one of the joined model's operators does."""

    joins_probes = True

    def __init__(self, declines: bool):
        self.name, self.declines, self.opened = "double-opened", declines, 0
        super().__init__("ort-cpu")

    def open(self, model):
        import onnxruntime as ort

        self.opened += 1
        session = ort.InferenceSession(model.data, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        if self.declines and len(names) > 1:
            raise NotForEngine("this runtime cannot take the model")
        return lambda feed: dict(zip(names, session.run(names, feed)))


@with_extra("onnxruntime", "ort")
@pytest.mark.parametrize("declines", [False, True])
def test_the_probes_run_in_one_model_or_each_alone_where_it_is_declined(declines):
    eng = Opened(declines)
    found = eng.probe()
    assert len(found) == len(PROBES) and not any(found.values()), found
    assert eng.opened == (1 + len(PROBES) if declines else 1)


class Provided(OrtRuntime):
    """onnxruntime's CPU kernels under another provider's name, counting the sessions."""

    def __init__(self):
        self.sessions = 0

    def available(self):
        return [CPU, "OtherExecutionProvider"]

    def session(self, model, provider, fallback):
        self.sessions += 1
        return super().session(model, CPU, fallback)


@with_extra("onnxruntime", "ort")
def test_only_onnxruntime_s_cpu_kernels_join_the_probes():
    # a provider that compiles a model whole (OpenVINO's, TensorRT's) may choose otherwise
    # for the joined model than for a probe alone: each runs alone there
    for provider, sessions in ((CPU, 1), ("OtherExecutionProvider", len(PROBES))):
        runtime = Provided()
        found = OrtEngine(provider, runtime=runtime).probe()
        assert not any(found.values()) and runtime.sessions == sessions, (provider, found)


def test_a_wrong_probe_leaves_the_other_operators_claimable():
    # the nearest-rounding double touches Div only: a relu model uses none, and passes
    eng = Mistaken(NEAREST)
    results = validate(eng, [CORPUS / "vectors" / "relu.jsonl"])
    assert {r.status for r in results} == {"pass"}
    assert np.all([w is None for n, w in eng.probe().items() if "Div" not in n])


def test_locate_names_a_fused_division_rounded_to_nearest():
    eng = Mistaken(NEAREST)
    results = validate(eng, [CORPUS / "vectors" / "conv.jsonl"], locate=True)
    located = [d["located"]["found"] for r in results for d in r.diffs if d.get("located")]
    assert located and any(
        "rounded to nearest instead of floor" in (f or {}).get("diagnosis", "") for f in located
    ), located


def _clamp_past_2_24(policy: bool):
    """A graph whose clamp (an operator, or a tensor's clamp policy) has bounds past 2^24
    that are no float32 values, and a decode at and past them; the reference's values."""
    from waiexport import params as P
    from waiexport.builder import GraphBuilder

    b = GraphBuilder()
    x = b.input(1, -(1 << 31), (1 << 31) - 1, max_h=1, max_w=4)
    lo, hi = (1 << 24) + 1, (1 << 24) + 3
    b.output(
        b.op("relu", x, policy="clamp", lo=lo, hi=hi)
        if policy
        else b.op("clamp", x, P.Clamp(lo, hi))
    )
    feed = np.array([[[0, 1 << 24, (1 << 24) + 4, (1 << 31) - 1]]], np.int64)
    return write(b.build()), feed, np.array([[[lo, lo, hi, hi]]], np.int64)


@with_extra("onnxruntime", "ort")
def test_a_runtime_that_fuses_a_clamp_s_pair_is_named_and_its_target_splits_the_pair():
    """The double fuses Min then Max into one float32 clamp: the probe of that pattern names
    it, the probe of the split pattern does not; a target whose description says so (as
    openvino-cpu's does) emits the split form, which the double computes exactly; a target
    that emits the pair gets no claim for a model that holds it."""
    from dataclasses import replace

    from waiexport.descriptions import TARGETS
    from waiexport.targets.exporter import export

    eng = Mistaken(FUSED, "openvino-cpu")
    wrong = {name for name, w in eng.probe().items() if w}
    assert wrong == {f"{CLAMP} int32: {FUSED}"}, wrong
    for policy in (False, True):
        data, feed, want = _clamp_past_2_24(policy)
        model = onnx.load_from_string(export(data, TARGETS["openvino-cpu"]).built().data)
        assert clamp_patterns(model) == {(SPLIT_CLAMP, "int32")}
        loaded = eng.load(data)
        assert loaded.unclaimable is None
        assert (np.asarray(next(iter(loaded.run([feed], []).values()))) == want).all()
    paired = replace(TARGETS["openvino-cpu"], name="paired", options=_without(CLAMP))
    TARGETS["paired"] = paired
    try:
        loaded = Mistaken(FUSED, "paired").load(_clamp_past_2_24(False)[0])
    finally:
        del TARGETS["paired"]
    assert FUSED in (loaded.unclaimable or ""), loaded.unclaimable


@pytest.mark.parametrize("policy", [False, True], ids=["clamp operator", "clamp policy"])
@with_extra("openvino", "openvino")
def test_openvino_clamps_past_2_24_as_the_reference_does(policy):
    """A clamp with bounds 2^24 + 1 and 2^24 + 3: OpenVINO fused the pair the export emitted
    into one float32 Clamp and gave 16777216 16777216 16777220 16777220."""
    from waiexport.targets.engines import engine

    data, feed, want = _clamp_past_2_24(policy)
    loaded = engine("openvino-cpu", isolate=True).load(data)
    assert loaded.unclaimable is None
    got = np.asarray(next(iter(loaded.run([feed], []).values())))
    assert got.tolist() == want.tolist()


@with_extra("onnxruntime", "ort")
def test_locate_names_a_clamp_fused_into_a_float32_clamp():
    """``validate --locate`` said "none of the known patterns" for OpenVINO's fused clamp."""
    from dataclasses import replace

    from waiexport.conformance.locate import locate, sentence
    from waiexport.descriptions import TARGETS

    TARGETS["paired"] = replace(TARGETS["openvino-cpu"], name="paired", options=_without(CLAMP))
    try:
        data, feed, _ = _clamp_past_2_24(False)
        loaded = Mistaken(FUSED, "paired").load(data)
        said = sentence(locate(loaded, [feed], []))
    finally:
        del TARGETS["paired"]
    assert "operator 0 (clamp)" in said and "Min and Max into one float32 Clamp" in said, said


@with_extra("onnxruntime", "ort")
def test_a_runtime_that_writes_into_a_folded_constant_is_named_and_its_target_avoids_it():
    """The double writes each result into a constant it folded from an Expand that a
    bitwise operator reads: the probe of that pattern (run twice) names it; openvino-cpu,
    whose description says so, makes a constant fill from its input at run time, which the
    double computes exactly decode after decode; a target that does not gets no claim for a
    model that holds the pattern."""
    from dataclasses import replace

    from waiexport.descriptions import TARGETS

    wrong = {name for name, w in Mistaken(WRITTEN, "openvino-cpu").probe().items() if w}
    assert wrong == {f"{FOLDED} int32: {WRITTEN}"}, wrong
    g, decodes = clamped_fill(2, 0, 100)
    data = write(g)
    loaded = Mistaken(WRITTEN, "openvino-cpu").load(data)
    assert loaded.unclaimable is None
    for feed, want in decodes:
        assert loaded.decode(feed, [])[0].tolist() == want.tolist()
    TARGETS["unfolded"] = replace(
        TARGETS["openvino-cpu"], name="unfolded", options=_without(FOLDED)
    )
    try:
        loaded = Mistaken(WRITTEN, "unfolded").load(data)
    finally:
        del TARGETS["unfolded"]
    assert WRITTEN in (loaded.unclaimable or ""), loaded.unclaimable


@with_extra("onnxruntime", "ort")
def test_the_sum_tree_probe_names_a_runtime_that_adds_a_convolution_s_sums_in_float32():
    """The runtime targets' convolution is a product then a tree of Add: a double that adds
    int32 through float32 fails the pattern's probe (sums past 2^24 that are no float32
    values) as well as Add's own, and onnxruntime passes both."""
    wrong = {name for name, w in Mistaken(SUM_TREE).probe().items() if w}
    assert {f"{SUM_TREE} int32: {FLOAT32}", f"Add int32: {FLOAT32}"} <= wrong, wrong
    assert not OrtEngine().probe()[f"{SUM_TREE} int32: {FLOAT32}"]


@with_extra("onnxruntime", "ort")
def test_the_views_probe_names_a_runtime_that_reads_a_split_s_views_from_its_start():
    """openvino-cpu's convolutions at stride 1 read their rows as views, cut from the flat
    input by a ``Split`` at each tap's offset: a double that reads every view from the
    tensor's start fails that pattern's probe alone, onnxruntime passes it, and a model that
    holds the pattern gets no claim from the double."""
    from waiexport.builder import GraphBuilder, conv, rq
    from waiexport.descriptions import TARGETS
    from waiexport.targets.exporter import export

    wrong = {name for name, w in Mistaken(VIEWED, "openvino-cpu").probe().items() if w}
    assert wrong == {f"{VIEWS} int32: {VIEWED}"}, wrong
    assert not OrtEngine().probe()[f"{VIEWS} int32: {VIEWED}"]
    b = GraphBuilder()
    w = np.arange(2 * 3 * 9).reshape(2, 3, 3, 3) % 7 - 3
    b.output(b.op("conv", b.input(3, -128, 127), conv(w, pad=1, rq=rq(shift=2))))
    data = write(b.build())
    model = onnx.load_from_string(export(data, TARGETS["openvino-cpu"]).built().data)
    assert view_patterns(model) == {(VIEWS, "int32")}
    loaded = Mistaken(VIEWED, "openvino-cpu").load(data)
    assert VIEWED in (loaded.unclaimable or ""), loaded.unclaimable
