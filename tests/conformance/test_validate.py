"""``validate`` that cannot be fooled: engines say what really ran, the report reads as JSON
whatever the results, each diagnosis comes from the test double that makes its mistake and
from no other, and the float-revealing vectors catch float and narrowed arithmetic by id."""

import json

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper, numpy_helper

from waiexport.cli import main
from waiexport.conformance.diagnose import wrap32
from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import files_under, report, validate
from waiexport.conformance.vectors import read_vectors
from waiexport.jsonio import dumps
from waiexport.reference.arrays import wide
from waiexport.targets.engines.base import Loaded
from waiexport.targets.engines.ort import CPU, OrtEngine, OrtRuntime
from waiexport.targets.engines.reference import ReferenceEngine
from waiexport.targets.errors import EngineUnavailable

from _helpers import mistaken, with_extra

VECTORS = CORPUS / "vectors"
NEW = {"conv_int8_sum_past_2_24", "conv_int8_sum_past_2_30", "rescale_product_past_2_53"}


def _each(f):
    """A mistake on each value ``p`` before the reference's own rounding."""

    def mistake(real, p, s, mode):
        q = np.array([f(int(v)) for v in np.ravel(p)], dtype=object).reshape(np.shape(p))
        return real(q, s, mode)

    return mistake


def _away(real, p, s, mode):
    """half_up as round-half-away-from-zero: negative ties go toward −∞."""
    if mode != "half_up":
        return real(p, s, mode)
    p = wide(p)
    return np.where(p < 0, -real(-p, s, mode), real(p, s, mode))


def _off_by_one(real, p, s, mode):
    out = np.array(real(p, s, mode), dtype=object)
    out.reshape(-1)[0] += 1
    return out


DOUBLES = {
    "float32": _each(lambda v: int(np.float32(v))),
    "float64": _each(lambda v: int(float(v))),
    "int32": _each(wrap32),
    "away": _away,
    "even": lambda real, p, s, mode: real(p, s, "half_even" if mode == "half_up" else mode),
    "off-by-one": _off_by_one,
}


def _run(double: str, file: str, locate: bool = False):
    return validate(
        mistaken(double, DOUBLES[double]), files_under([VECTORS / f"{file}.jsonl"]), locate=locate
    )


@pytest.mark.parametrize(
    "double, ids",
    [
        ("float32", NEW),
        ("float64", {"rescale_product_past_2_53"}),
        ("int32", {"rescale_product_past_2_53"}),
    ],
)
def test_float_and_narrowing_doubles_fail_the_new_vectors_by_id(double, ids):
    failed = {r.vid for f in ("conv", "rescale") for r in _run(double, f) if r.status == "fail"}
    assert ids <= failed


def test_the_new_vectors_drive_one_kernel_past_2_24_and_2_30():
    from onnx.reference import ReferenceEvaluator

    from waiexport.conformance.vectors import read_vectors, vector_inputs
    from waiexport.descriptions import target
    from waiexport.targets.exporter import export
    from waiexport.targets.format import host_feed
    from waiexport.targets.onnx.export import every_node_model

    largest = {}
    for v in read_vectors(VECTORS / "conv.jsonl"):
        if v["id"] not in NEW:
            continue
        exp = export(v["graph_bytes"], target("ort-cpu"))
        model = every_node_model(exp.prepared)
        convs = [
            n.output[0] for n in model.graph.node if n.op_type in ("ConvInteger", "MatMulInteger")
        ]
        [(inputs, scalars)] = vector_inputs(v, exp.graph)
        values = ReferenceEvaluator(model).run(convs, host_feed(exp.graph, inputs, scalars))
        largest[v["id"]] = max(int(np.abs(a.astype(np.int64)).max()) for a in values)
    assert largest["conv_int8_sum_past_2_24"] > 2**24
    assert 2**30 <= largest["conv_int8_sum_past_2_30"] < 2**31


DIAGNOSES = [
    ("conv", "conv_int8_sum_past_2_24", "float32", "as float32 accumulation gives"),
    ("rescale", "rescale_product_past_2_53", "float64", "as float64 arithmetic gives"),
    ("rescale", "rescale_product_past_2_53", "int32", "as int64 narrowed to int32 gives"),
    ("rescale", "rescale_half_up_ties_shift_1", "away", "negative ties rounded away from zero"),
    ("rescale", "rescale_half_up_ties_shift_1", "even", "ties rounded to even"),
]


def _diagnoses(double, file, vid) -> list:
    [r] = [r for r in _run(double, file, locate=True) if r.vid == vid]
    return [d["located"]["found"].get("diagnosis") for d in r.diffs]


@pytest.mark.parametrize("file, vid, owner, words", DIAGNOSES)
def test_each_diagnosis_comes_from_its_double_and_no_other(file, vid, owner, words):
    for double in DOUBLES:
        said = [d for d in _diagnoses(double, file, vid) if d and words in d]
        assert bool(said) == (double == owner), (double, _diagnoses(double, file, vid))


def test_a_mistake_of_no_known_pattern_is_named_none():
    [found] = _diagnoses("off-by-one", "conv", "conv_partial_sum_ends")[:1]
    assert found is None


def test_ties_are_counted_only_where_the_engine_took_the_other_rounding():
    [r] = [r for r in _run("away", "rescale", True) if r.vid == "rescale_half_up_ties_shift_1"]
    found = r.diffs[0]["located"]["found"]
    assert found["on_a_tie"] == found["differing"] == 2  # the two negative ties, −1 and −3
    [r] = [r for r in _run("off-by-one", "rescale", True) if r.vid == "rescale_floor_ties_shift_1"]
    assert "on_a_tie" not in r.diffs[0]["located"]["found"]  # floor: ties do not matter


KERNELS = ("ConvInteger", "MatMulInteger")


class PoisonedRuntime(OrtRuntime):
    """onnxruntime whose first integer kernel doubles each element it sums (an added 1
    would cancel where one GEMM sums both sign parts and they are subtracted)."""

    def session(self, model, provider, fallback):
        m = onnx.load_from_string(model)
        k, node = next((k, n) for k, n in enumerate(m.graph.node) if n.op_type in KERNELS)
        out = node.output[0]
        node.output[0] = f"{out}_raw"
        m.graph.initializer.append(numpy_helper.from_array(np.array(2, np.int32), "two"))
        m.graph.node.insert(k + 1, helper.make_node("Mul", [f"{out}_raw", "two"], [out]))
        return super().session(m.SerializeToString(), provider, fallback)


def test_locate_names_the_kernel_inside_the_lowering():
    eng = OrtEngine(runtime=PoisonedRuntime())
    [r] = [
        r
        for r in validate(eng, files_under([VECTORS / "conv.jsonl"]), locate=True)
        if r.vid == "conv_basic"
    ]
    located = r.diffs[0]["located"]
    assert located["found"]["node"]["op_type"] in KERNELS
    assert located["found"]["node"]["name"].startswith("op0/")
    assert "inside its lowering the first node that differs" in located["sentence"]


def test_locate_blames_no_node_when_the_model_agrees_with_the_evaluator():
    # the reference made wrong (ties down): onnxruntime differs from it, but every node of
    # the model agrees with onnx's own evaluator, and the sentence says so
    from waiexport import params as P
    from waiexport import write
    from waiexport.builder import GraphBuilder, rq
    from waiexport.conformance.locate import locate, sentence

    b = GraphBuilder()
    b.output(b.op("rescale", b.input(1, -99, 99), P.Rescale(rq(shift=1, round="half_up"))))
    loaded = OrtEngine().load(write(b.build()))
    found = locate(
        loaded,
        [np.array([[[3, 5, 4, -7, 8]]])],
        [],
        rounding=lambda real, p, s, mode: real(wide(p) - 1, s, mode),
    )
    assert found["differing"] == 3 and found["node"] is None
    assert "every node of its lowering agrees" in sentence(found)


class PlacingRuntime(OrtRuntime):
    """A provider that exists, and that places three nodes of every model on the CPU."""

    def available(self):
        return super().available() + ["FakeExecutionProvider"]

    def session(self, model, provider, fallback):
        s = super().session(model, CPU, fallback)
        n = len(onnx.load_from_string(model).graph.node)
        s.placement = lambda nodes: {CPU: 3, provider: n - 3}
        return s


def test_nodes_placed_on_the_cpu_are_reported_and_never_counted():
    eng = OrtEngine("FakeExecutionProvider", fallback=True, runtime=PlacingRuntime())
    results = validate(eng, files_under([VECTORS / "relu.jsonl"]))
    assert results and all(r.status == "elsewhere" for r in results if r.status != "skip")
    assert results[0].reason.startswith("ran on CPUExecutionProvider: 3 of ")
    rep = report(eng, results)
    assert rep["totals"]["pass"] == 0 and rep["claim"] is None


@with_extra("onnxruntime", "ort")
def test_a_provider_that_is_not_installed_is_refused():
    with pytest.raises(EngineUnavailable):
        OrtEngine("NoSuchExecutionProvider")
    r = CliRunner().invoke(main, ["validate", "--engine", "ort:NoSuchExecutionProvider"])
    assert r.exit_code == 2 and "not available" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_without_fallback_a_provider_that_declines_nodes_runs_nothing():
    # onnxruntime ships this provider, which takes none of our nodes: not for this engine
    eng = (
        OrtEngine("AzureExecutionProvider")
        if "AzureExecutionProvider" in OrtRuntime().available()
        else pytest.skip("no second provider in this onnxruntime")
    )
    results = validate(eng, files_under([VECTORS / "relu.jsonl"]))
    assert {r.status for r in results} == {"declined"}
    assert any("without CPU fallback" in r.reason for r in results)


def test_a_file_name_and_an_id_outside_ascii_are_escaped_in_the_json_report(tmp_path):
    line = (VECTORS / "relu.jsonl").read_text().splitlines()[0]
    (tmp_path / "café.jsonl").write_text(line.replace('"relu_basic"', '"caf\\u00e9"') + "\n")
    r = CliRunner().invoke(main, ["validate", "--json", str(tmp_path)])
    assert r.exit_code == 0 and r.stdout.isascii() and '"caf\\u00e9"' in r.stdout, r.output
    d = json.loads(r.stdout)
    assert list(d["files"]) == ["café"] and d["vectors"][0]["id"] == "café"


def test_json_report_on_a_failing_run(monkeypatch):
    import waiexport.targets.engines as engines

    monkeypatch.setattr(
        engines, "engine", lambda name, **kw: mistaken("float32", DOUBLES["float32"])
    )
    r = CliRunner().invoke(main, ["validate", "--json", "--locate", str(VECTORS / "conv.jsonl")])
    assert r.exit_code == 1
    d = json.loads(r.stdout)
    assert r.stdout.isascii() and r.stdout.strip() == r.stdout.strip().replace(" ,", ",")
    assert int(d["totals"]["fail"]) >= 2 and d["claim"] is None
    bad = next(v for v in d["vectors"] if v["id"] == "conv_int8_sum_past_2_24")
    assert bad["status"] == "fail" and all(
        k.lstrip("-").isdigit() for k in bad["diffs"][0]["histogram"]
    )
    assert "float32" in bad["diffs"][0]["located"]["sentence"]


@with_extra("onnxruntime", "ort")
def test_json_report_when_everything_passes():
    r = CliRunner().invoke(
        main, ["validate", "--json", "--engine", "ort-cpu", str(VECTORS / "relu.jsonl")]
    )
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["claim"]["profile"] == "acc32"
    assert d["claim"]["packages"]["onnxruntime"] and d["claim"]["provider"] == CPU


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "cut"),
        (b"", "nothing-to-validate"),
        (b"{\n", "bad-vector: line 1: not JSON"),
        (b'{"id": "x"}\n', "bad-vector: line 1: not a vector"),
    ],
)
def test_bad_vector_files_are_errors_not_passes(tmp_path, content, words):
    f = tmp_path / "v.jsonl"
    good = (VECTORS / "relu.jsonl").read_bytes()
    f.write_bytes(good[:-1] if content is None else content)
    r = CliRunner().invoke(main, ["validate", str(f)])
    assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output


def test_nothing_to_validate(tmp_path):
    r = CliRunner().invoke(main, ["validate", str(tmp_path)])
    assert r.exit_code == 2 and "nothing-to-validate" in r.output
    (tmp_path / "dir.jsonl").mkdir()
    r = CliRunner().invoke(main, ["validate", str(tmp_path)])
    assert r.exit_code == 2 and "cannot read" in r.output


def test_exported_models_declare_the_lowest_ir_and_opset():
    from waiexport import write
    from waiexport.capabilities.examples import tiny_synth
    from waiexport.descriptions import target
    from waiexport.targets.exporter import export

    model = export(write(tiny_synth()), target("ort-cpu")).prepared
    [opset] = model.opset_import
    used = {n.op_type for n in model.graph.node}
    assert opset.version == max(onnx.defs.get_schema(op, 21, "").since_version for op in used)
    assert model.ir_version == helper.find_min_ir_version_for([opset]) <= 10


def test_no_int64_max_in_the_sign_split():
    # onnxruntime 1.24.1 computes int64 Max(x, 0) as 0 for x in [2^31, 2^32) (measured):
    # the export takes the max on int32 and forms x⁻ by a subtraction.
    from waiexport import write
    from waiexport.builder import GraphBuilder, conv
    from waiexport.descriptions import target
    from waiexport.targets.exporter import export

    b = GraphBuilder()
    b.output(b.op("conv", b.input(1, -(2**31), 2**31 - 1), conv([[[[1]]]])))
    model = onnx.shape_inference.infer_shapes(export(write(b.build()), target("ort-cpu")).prepared)
    types = {v.name: v.type.tensor_type.elem_type for v in model.graph.value_info}
    types.update({i.name: i.type.tensor_type.elem_type for i in model.graph.input})
    assert all(
        types[n.input[0]] != onnx.TensorProto.INT64 for n in model.graph.node if n.op_type == "Max"
    )


class Returning(ReferenceEngine):
    """The reference with one named mistake in the outputs it returns."""

    def __init__(self, name, mistake):
        self.name, self.mistake = name, mistake

    def load(self, data):
        loaded = super().load(data)
        return Loaded(loaded.graph, lambda i, s: self.mistake(loaded.run(i, s)))


class _Agreeable(int):
    """An integer that says it equals anything."""

    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def _agreeable(v: np.ndarray) -> np.ndarray:
    """``v + 1`` as :class:`_Agreeable` integers in an object array."""
    out = np.empty(v.shape, object)
    out.reshape(-1)[:] = [_Agreeable(int(x) + 1) for x in v.reshape(-1)]
    return out


class _SaysInt64(np.ndarray):
    """An array that says its type is int64, whatever it holds."""

    @property
    def dtype(self):
        return np.dtype(np.int64)


RETURNING = {
    "no outputs": (lambda got: {}, "output out0, out1, out2, out3 missing"),
    "a renamed output": (
        lambda got: {"max_2" if k == "out0" else k: v for k, v in got.items()},
        "output out0 missing; extra output max_2",
    ),
    "the second dropped": (
        lambda got: {k: v for k, v in got.items() if k != "out1"},
        "output out1 missing",
    ),
    "a third bogus one": (lambda got: {**got, "out9": got["out0"]}, "extra output out9"),
    "a wrong shape": (
        lambda got: {k: v.reshape(-1) for k, v in got.items()},
        "output out0 has shape",
    ),
    "a wrong type": (
        lambda got: {k: v.astype(np.float64) for k, v in got.items()},
        "output out0 is float64, not an integer array",
    ),
    "floats in an array that says it holds int64": (
        lambda got: {k: v.astype(np.float64).view(_SaysInt64) for k, v in got.items()},
        "output out0 is float64, not an integer array",
    ),
    "integers that say they equal anything": (
        lambda got: {k: _agreeable(v) for k, v in got.items()},
        "output out0 holds values that are not integers (_Agreeable)",
    ),
}


class Graphless(Returning):
    """:class:`Returning`, whose loaded graph is ``None`` (a plug-in that sees no use for
    it): what it returns is checked against this toolchain's reading of the graph."""

    def load(self, data):
        from dataclasses import replace

        return replace(super().load(data), graph=None)


@pytest.mark.parametrize(
    "mistake, words", [(lambda got: got, None), (RETURNING["the second dropped"])]
)
def test_what_an_engine_returns_is_checked_against_this_toolchain_s_graph(mistake, words):
    file = VECTORS / "subpos_split.jsonl"
    results = validate(Graphless("graphless", mistake), [file])
    computes = {
        v["id"] for v in read_vectors(file) if any("outputs" in d["expect"] for d in v["decodes"])
    }
    assert computes and {r.vid for r in results if r.status != "pass"} == (
        set() if words is None else computes
    )
    assert all(words in r.reason for r in results if r.vid in computes and words)


class Describing(ReferenceEngine):
    """The reference, describing itself as ``said`` (a plug-in's mistake)."""

    name = "describing"

    def __init__(self, said):
        self.said = said

    def describe(self):
        return self.said


@pytest.mark.parametrize(
    "said, shown",
    [
        (
            {"runs_on": "here", "packages": {"a": 1.5}, "threads": 4.0},
            {"runs_on": "here", "packages": {"a": "1.5"}, "threads": "4.0"},
        ),
        ("a board on the bench", {"runs_on": "a board on the bench"}),
    ],
)
def test_an_engine_s_description_of_any_type_makes_its_claim_in_text(said, shown):
    eng = Describing(said)
    claim = json.loads(dumps(report(eng, validate(eng, [VECTORS / "relu.jsonl"])), strict=False))[
        "claim"
    ]
    assert {k: claim[k] for k in shown} == shown


class ListingAll(Returning):
    """:class:`Returning`, whose every-tensor run gives a list, not tensors by index."""

    def load(self, data):
        from dataclasses import replace

        loaded = super().load(data)
        return replace(loaded, run_all=lambda inputs, scalars: [loaded.run(inputs, scalars)])


def test_locate_tells_nothing_where_an_engine_gives_its_tensors_otherwise():
    eng = ListingAll("listing", lambda got: {k: v + 1 for k, v in got.items()})
    results = validate(eng, [VECTORS / "relu.jsonl"], locate=True)
    assert results and all(r.status == "fail" for r in results)
    assert all(d["located"]["found"] is None for r in results for d in r.diffs)


def test_an_object_output_is_checked_to_its_last_element():
    from waiexport import write
    from waiexport.builder import GraphBuilder
    from waiexport.targets.outputs import OutputMismatch, in_order

    b = GraphBuilder()
    b.output(b.op("relu", b.input(2, -9, 9)))
    g = b.build()
    x = np.arange(2 * 40 * 40).reshape(2, 40, 40) % 19 - 9
    got = ReferenceEngine().load(write(g)).run([x], [])["out0"].astype(object)
    assert in_order(g, {"out0": got}, [x], [])[0].tolist() == np.maximum(x, 0).tolist()
    got.reshape(-1)[-1] = float(got.reshape(-1)[-1])  # its 3,200th element: 8.0, not 8
    with pytest.raises(OutputMismatch, match=r"out0 holds values that are not integers \(float\)"):
        in_order(g, {"out0": got}, [x], [])


@pytest.mark.parametrize("double", sorted(RETURNING))
def test_an_engine_that_returns_other_outputs_fails_by_id_with_no_claim(double):
    mistake, words = RETURNING[double]
    file = VECTORS / "subpos_split.jsonl"
    results = validate(Returning(double, mistake), [file])
    computes = {
        v["id"] for v in read_vectors(file) if any("outputs" in d["expect"] for d in v["decodes"])
    }
    assert len(computes) >= 2
    assert {r.vid for r in results if r.status == "fail"} == computes
    assert all(words in r.reason for r in results if r.vid in computes), [r.reason for r in results]
    assert report(Returning(double, mistake), results)["claim"] is None


def _edited(tmp_path, file: str, edit, line: int = 0):
    """``file``'s vectors with line ``line`` changed by ``edit`` (a vector → a vector)."""
    lines = (VECTORS / file).read_text().splitlines()
    v = json.loads(lines[line])
    lines[line] = json.dumps(edit(v))
    out = tmp_path / file
    out.write_text("\n".join(lines) + "\n")
    return out


def _outputs(v, change):
    for d in v["decodes"]:
        if "outputs" in d["expect"]:
            d["expect"]["outputs"] = change(d["expect"]["outputs"])
    return v


@pytest.mark.parametrize(
    "file, edit, words",
    [
        ("relu.jsonl", lambda v: _outputs(v, lambda o: []), "0 expected outputs for a graph of 1"),
        ("subpos_split.jsonl", lambda v: _outputs(v, lambda o: o[:1]), "1 expected outputs"),
        ("subpos_split.jsonl", lambda v: _outputs(v, lambda o: o + o[:1]), "5 expected outputs"),
        (
            "relu.jsonl",
            lambda v: _outputs(
                v,
                lambda o: (
                    [{"data": o[0]["data"], "shape": ["1", "1", str(len(o[0]["data"]))]}]
                    if o[0]["shape"][0] != "1" or o[0]["shape"][1] != "1"
                    else [
                        {
                            "data": o[0]["data"] + ["0"],
                            "shape": ["1", "1", str(len(o[0]["data"]) + 1)],
                        }
                    ]
                ),
            ),
            "the graph gives",
        ),
        ("relu.jsonl", lambda v: {**v, "decodes": []}, "load ok with no decodes"),
        ("relu.jsonl", lambda v: {**v, "load": "weird"}, "neither ok nor a refusal code"),
    ],
)
@with_extra("onnxruntime", "ort")
def test_a_vector_whose_structure_does_not_match_its_graph_is_malformed(
    tmp_path, file, edit, words
):
    f = _edited(tmp_path, file, edit)
    for engine_name in ("reference", "ort-cpu"):
        r = CliRunner().invoke(main, ["validate", "--engine", engine_name, str(f)])
        assert r.exit_code == 2 and words in r.output, r.output
        assert f"{f}: bad-vector: line 1" in r.output, r.output
        assert "passed" not in r.output and "Traceback" not in r.output


@with_extra("onnxruntime", "ort")
def test_no_decodes_on_the_past_2_30_vector_is_malformed(tmp_path):
    lines = (VECTORS / "conv.jsonl").read_text().splitlines()
    n = next(k for k, line in enumerate(lines) if '"conv_int8_sum_past_2_30"' in line)
    f = _edited(tmp_path, "conv.jsonl", lambda v: {**v, "decodes": []}, n)
    r = CliRunner().invoke(main, ["validate", "--engine", "ort-cpu", str(f)])
    assert (
        r.exit_code == 2
        and f"{f}: bad-vector: line {n + 1}" in r.output
        and "conv_int8_sum_past_2_30" in r.output
    )


def test_a_duplicate_id_is_malformed(tmp_path):
    lines = (VECTORS / "relu.jsonl").read_text().splitlines()
    f = tmp_path / "relu.jsonl"
    f.write_text("\n".join(lines + lines[:1]) + "\n")
    r = CliRunner().invoke(main, ["validate", str(f)])
    assert r.exit_code == 2 and f"line {len(lines) + 1}:" in r.output and "id of line 1" in r.output


@pytest.mark.parametrize(
    "args",
    [
        ["--engine", "ort-cpu", str(CORPUS / "stage")],
        ["--engine", "ort:AzureExecutionProvider", str(VECTORS / "relu.jsonl")],
    ],
)
@with_extra("onnxruntime", "ort")
def test_nothing_ran_is_not_a_pass(args):
    r = CliRunner().invoke(main, ["validate", *args])
    assert (
        r.exit_code == 2
        and "nothing-ran" in r.output
        and "claim" not in r.output.lower()[r.output.lower().find("nothing-ran") :]
    )


def test_a_float32_engine_on_values_past_2_53_alone_is_not_called_float64():
    # rescale_floor_ties_shift_0's inputs are 0, ±1, −2 and ±2^63: nothing between 2^24 and
    # 2^53 tells float32 from float64, and the diagnosis says so
    said = _diagnoses("float32", "rescale", "rescale_floor_ties_shift_0")
    assert said and all("float32 or float64 arithmetic" in d for d in said), said


@with_extra("onnxruntime", "ort")
def test_a_tampered_expectation_says_the_vector_may_be_wrong(tmp_path):
    v = json.loads((VECTORS / "relu.jsonl").read_text().splitlines()[0])
    o = v["decodes"][0]["expect"]["outputs"][0]
    o["data"][0] = str(int(o["data"][0]) + 1)
    f = tmp_path / "relu.jsonl"
    f.write_text(json.dumps(v) + "\n")
    r = CliRunner().invoke(main, ["validate", "--engine", "ort-cpu", str(f)])
    assert r.exit_code == 1 and "the vector itself may be wrong" in r.output
    assert "vectors check would tell" in r.output


def test_a_vectors_tensors_are_parsed_once_and_each_caller_gets_its_own():
    # an engine that writes into its inputs or the expected outputs changes nothing another
    # engine, or the next decode's check, is given
    from waiexport.conformance.vectors import parse_expect, vector_inputs
    from waiexport.jsonio import parse_decode, parse_tensor
    from waiexport.whg1 import read

    v = read_vectors(VECTORS / "conv.jsonl")[0]
    g = read(v["graph_bytes"])
    first = vector_inputs(v, g)
    for inputs, _ in first:
        for x in inputs:
            x[...] = 12345
    _, want = parse_expect(v["decodes"][0])
    want[0][...] = 12345
    again = vector_inputs(v, g)
    for (inputs, scalars), d in zip(again, v["decodes"]):
        fresh, fresh_scalars = parse_decode(d, len(inputs), len(scalars), "d")
        assert scalars == fresh_scalars and all(
            (a == b).all() for a, b in zip(inputs, fresh, strict=True)
        )
    kind, got = parse_expect(v["decodes"][0])
    assert kind == "outputs" and all(
        (a == parse_tensor(t, "e")).all()
        for a, t in zip(got, v["decodes"][0]["expect"]["outputs"], strict=True)
    )
