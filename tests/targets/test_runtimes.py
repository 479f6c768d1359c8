"""The third-party runtimes as engines, each on a small named subset (the whole corpus is
``benchmarks/runtimes.py``'s, whose table docs/runtimes.md gives): each runs to a report in its
worker, what it computes exactly passes, and what it does not is said; each skips by name
where its extra is absent."""

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from waiexport.cli import main
from waiexport.conformance.generate import CORPUS

from _helpers import ROOT, with_extra

V = CORPUS / "vectors"
SMALL = [str(V / f) for f in ("relu.jsonl", "add.jsonl", "abs.jsonl", "concat.jsonl")]


def validate(*args):
    r = CliRunner().invoke(main, ["validate", "--json", *args])
    assert r.stdout.startswith("{"), r.output
    return r.exit_code, json.loads(r.stdout)


@pytest.mark.parametrize(
    "engine",
    [
        "onnx-reference",
        pytest.param("tvm-llvm", marks=with_extra("tvm", "tvm")),
        pytest.param("tract", marks=with_extra("tract", "tract")),
    ],
)
@with_extra("onnxruntime", "ort")
def test_an_exact_runtime_passes_what_it_runs_with_a_claim(engine):
    code, rep = validate("--engine", engine, *SMALL)
    assert code == 0 and rep["claim"]["engine"] == engine
    assert int(rep["totals"]["pass"]) >= 5
    assert rep["claim"]["target"] == ("ort-cpu" if engine == "onnx-reference" else engine)
    # tract panics on its int64 MatMul probe (a crash of that probe alone): these models
    # use no int64 MatMul, so the claim stands
    assert "all exact" in rep["claim"]["probed"] or engine == "tract"


@with_extra("openvino", "openvino")
def test_openvino_on_the_ort_cpu_model_fails_what_it_computes_through_float_and_says_so():
    code, rep = validate(
        "--engine",
        "openvino-cpu",
        "--target",
        "ort-cpu",
        str(V / "relu.jsonl"),
        str(V / "conv.jsonl"),
    )
    by_id = {v["id"]: v for v in rep["vectors"]}
    assert by_id["relu_basic"]["status"] == "pass" and code == 1 and rep["claim"] is None
    sum_past = by_id["conv_int8_sum_past_2_30"]
    assert sum_past["status"] == "fail" and "float32 accumulation" in sum_past["reason"]


@with_extra("openvino", "openvino")
def test_locate_on_openvino_names_the_fused_requantisation_rounding_to_nearest():
    code, rep = validate(
        "--engine", "openvino-cpu", "--target", "npu-int8", "--locate", str(V / "conv.jsonl")
    )
    basic = next(v for v in rep["vectors"] if v["id"] == "conv_basic")
    sentence = basic["diffs"][0]["located"]["sentence"]
    assert "operator 0 (conv)" in sentence and "rounded to nearest instead of half_up" in sentence


@pytest.mark.parametrize(
    "engine",
    [
        pytest.param("openvino-cpu", marks=with_extra("openvino", "openvino")),
        pytest.param("tvm-llvm", marks=with_extra("tvm", "tvm")),
        pytest.param("tract", marks=with_extra("tract", "tract")),
    ],
)
def test_a_runtime_target_s_facts_are_its_probes(engine):
    # the measured table behind the target is what the probes find on the runtime today:
    # every (operator, type) it lists fails its probe here, and every failing probe is listed
    from waiexport.descriptions import target
    from waiexport.targets.engines import engine as make
    from waiexport.targets.onnx.probes import PROBES

    found = make(engine, isolate=True)._probed
    wrong = {
        (p.op, p.dtype)
        for p in PROBES
        if found[p.name] and not found[p.name].startswith("cannot run")
    }
    assert wrong == {pair for pair, _ in target(engine).options.inexact}


@with_extra("openvino", "openvino")
def test_the_openvino_target_passes_or_declines_by_node_and_never_fails():
    code, rep = validate(
        "--engine",
        "openvino-cpu",
        str(V / "relu.jsonl"),
        str(V / "conv.jsonl"),
        str(V / "concat.jsonl"),
    )
    assert code == 0 and rep["claim"] is not None and rep["claim"]["target"] == "openvino-cpu"
    conv = {v["id"]: v for v in rep["vectors"] if v["file"] == "conv" and v["status"] != "skip"}
    # past 2^24 in one accumulator: what OpenVINO gets wrong on the ort-cpu model (above)
    assert conv["conv_int8_sum_past_2_30"]["status"] == "pass"
    assert all(
        v["status"] == "pass" or v["status"] == "declined" and "its lowering needs" in v["reason"]
        for v in conv.values()
    )


@with_extra("tract", "tract")
def test_tract_sums_gram_in_int32_matmul_where_it_panics_on_int64():
    code, rep = validate("--engine", "tract", str(V / "gram.jsonl"))
    ran = [v for v in rep["vectors"] if v["status"] != "skip"]
    assert code == 0 and rep["claim"] is not None and ran
    assert all(v["status"] == "pass" for v in ran)


@with_extra("tvm", "tvm")
def test_export_for_a_runtime_target_self_checks_on_that_runtime(tmp_path):
    src = str(ROOT / "examples" / "tiny_synth.whg1")
    r = CliRunner().invoke(
        main, ["export", src, "--target", "tvm-llvm", "-o", str(tmp_path / "m.onnx"), "--json"]
    )
    assert r.exit_code == 0, r.output
    check = json.loads(r.stdout)["self_check"]
    assert check["bit_exact"] and check["on"].startswith("tvm-llvm, ") and "not_on" not in check


@with_extra("onnxruntime", "ort")
def test_export_for_a_runtime_target_without_its_extra_says_it_was_not_checked_there(
    tmp_path, monkeypatch
):
    from waiexport.targets import engines
    from waiexport.targets.errors import EngineUnavailable

    def missing(name, **kw):
        raise EngineUnavailable(f"{name}'s runtime is not installed")

    monkeypatch.setattr(engines, "engine", missing)
    src = str(ROOT / "examples" / "tiny_synth.whg1")
    r = CliRunner().invoke(
        main, ["export", src, "--target", "tvm-llvm", "-o", str(tmp_path / "m.onnx")]
    )
    assert r.exit_code == 0, r.output
    assert "(on onnxruntime's CPU provider)" in r.output
    assert (
        "not self-checked on the target's own runtime: tvm-llvm: tvm-llvm's runtime is "
        "not installed" in r.output
    )


@with_extra("openvino", "openvino")
def test_int_synth_exports_for_openvino_in_integers_it_keeps_and_runs_bit_exact(tmp_path):
    import numpy as np
    import onnx

    from waiexport.capabilities.lower import lower_set
    from waiexport.reference import decode
    from waiexport.targets.engines import engine
    from waiexport.whg1 import write

    data = write(lower_set("int_synth", ROOT / "examples" / "int_synth.json")[0]["synth"])
    (tmp_path / "s.whg1").write_bytes(data)
    r = CliRunner().invoke(
        main,
        [
            "export",
            str(tmp_path / "s.whg1"),
            "--target",
            "openvino-cpu",
            "-o",
            str(tmp_path / "m.onnx"),
        ],
    )
    assert r.exit_code == 0 and "bit-exact against the reference (on openvino-cpu" in r.output
    ops = {n.op_type for n in onnx.load(tmp_path / "m.onnx").graph.node}
    assert not ops & {
        "ConvInteger",
        "MatMulInteger",
        "MatMul",
        "ReduceSum",
        "Div",
        "Mod",
        "BitShift",
        "Clip",
    }
    loaded = engine("openvino-cpu", isolate=True).load(data)
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = rng.integers(-128, 128, (loaded.graph.tensor(0).channels, 5, 7))
        want = decode(loaded.graph, [x], [])
        assert all((a == b).all() for a, b in zip(loaded.decode([x], []), want))


@with_extra("tract", "tract")
def test_the_python_api_runs_tract_in_a_worker_so_its_panics_end_no_process():
    """tract panics on some of its probes, and a panic aborts the process it happens in:
    ``engine("tract")`` runs it in a worker unasked, so a script that validates on it lives
    to print its results (in this process, the probes abort it)."""
    script = (
        "from waiexport.targets.engines import engine\n"
        "from pathlib import Path\n"
        "from waiexport.conformance.validate import files_under, validate\n"
        f"files = files_under([Path({str(V / 'relu.jsonl')!r})])\n"
        "results = validate(engine('tract'), files)\n"
        "print(sorted({r.status for r in results}))\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "['pass']", (r.returncode, r.stderr[-500:])


@with_extra("onnxruntime", "ort")
def test_an_engine_keeps_the_graphs_it_loaded_last_not_all(monkeypatch):
    # a run over thousands of graphs (a differential fuzz run) kept every model and session
    # it had loaded until the machine's memory ran out
    import waiexport.targets.engines.base as base
    from waiexport import write
    from waiexport.builder import GraphBuilder
    from waiexport.targets.engines import engine

    monkeypatch.setattr(base, "KEPT", 2)

    def relu(hi: int) -> bytes:
        b = GraphBuilder()
        b.output(b.op("relu", b.input(1, -5, hi)))
        return write(b.build())

    e = engine("ort-cpu")
    first = e.load(relu(5))
    assert e.load(relu(5)) is first
    second, third = e.load(relu(6)), e.load(relu(7))
    assert e.load(relu(7)) is third and e.load(relu(6)) is second
    assert e.load(relu(5)) is not first  # the oldest, let go
