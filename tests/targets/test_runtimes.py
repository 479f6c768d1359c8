"""The third-party runtimes as engines, each on a small named subset (the whole corpus is
``benchmarks/runtimes.py``'s, whose table the README gives): each runs to a report in its
worker, what it computes exactly passes, and what it does not is said; each skips by name
where its extra is absent."""

import json

import pytest
from click.testing import CliRunner

from waiexport.cli import main
from waiexport.conformance.generate import CORPUS

from _helpers import with_extra

V = CORPUS / "vectors"
SMALL = [str(V / f) for f in ("relu.jsonl", "add.jsonl", "abs.jsonl", "concat.jsonl")]


def validate(*args):
    r = CliRunner().invoke(main, ["validate", "--json", *args])
    assert r.stdout.startswith("{"), r.output
    return r.exit_code, json.loads(r.stdout)


@pytest.mark.parametrize("engine", [
    "onnx-reference",
    pytest.param("tvm-llvm", marks=with_extra("tvm", "tvm")),
    pytest.param("tract", marks=with_extra("tract", "tract")),
])
def test_an_exact_runtime_passes_what_it_runs_with_a_claim(engine):
    code, rep = validate("--engine", engine, *SMALL)
    assert code == 0 and rep["claim"]["engine"] == engine
    assert int(rep["totals"]["pass"]) >= 5 and rep["claim"]["target"] == "ort-cpu"
    # tract panics on its int64 MatMul probe (a crash of that probe alone): these models
    # use no int64 MatMul, so the claim stands
    assert "all exact" in rep["claim"]["probed"] or engine == "tract"


@with_extra("openvino", "openvino")
def test_openvino_fails_what_it_computes_through_float_and_says_so():
    code, rep = validate("--engine", "openvino-cpu", str(V / "relu.jsonl"), str(V / "conv.jsonl"))
    by_id = {v["id"]: v for v in rep["vectors"]}
    assert by_id["relu_basic"]["status"] == "pass" and code == 1 and rep["claim"] is None
    sum_past = by_id["conv_int8_sum_past_2_30"]
    assert sum_past["status"] == "fail" and "float32 accumulation" in sum_past["reason"]


@with_extra("openvino", "openvino")
def test_locate_on_openvino_names_the_fused_requantisation_rounding_to_nearest():
    code, rep = validate("--engine", "openvino-cpu", "--target", "npu-int8", "--locate",
                         str(V / "conv.jsonl"))
    basic = next(v for v in rep["vectors"] if v["id"] == "conv_basic")
    sentence = basic["diffs"][0]["located"]["sentence"]
    assert "operator 0 (conv)" in sentence and "rounded to nearest instead of half_up" in sentence
