"""The ``waiexport`` command line: ``inspect``, and refusals as one line with exit 2."""

import json

import pytest
from click.testing import CliRunner

from waiexport import write
from waiexport.capabilities.examples import EXAMPLES
from waiexport.cli import main

from _helpers import every_op_graph, ROOT, with_extra

EXAMPLE = str(ROOT / "examples" / "tiny_synth.whg1")


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_bundled_examples_are_what_their_generators_write():
    for name, make in EXAMPLES.items():
        assert (ROOT / "examples" / name).read_bytes() == write(make()), name


def test_inspect_text():
    r = run("inspect", EXAMPLE)
    assert r.exit_code == 0, r.output
    assert "0: tensor 0 data 8 channels up to 16×16, check [-128, 127]" in r.output
    assert "0: conv_transpose(0) -> 1 [6, 32, 32] derived" in r.output
    assert "3: clamp(3) -> 4 [3, 64, 64] derived" in r.output
    assert "lo=0, hi=255" in r.output


def test_inspect_json():
    r = run("inspect", "--json", EXAMPLE)
    assert r.exit_code == 0
    d = json.loads(r.output)
    assert [op["op"] for op in d["operators"]] == [
        "conv_transpose",
        "relu",
        "conv_transpose",
        "clamp",
    ]
    assert d["tensors"][4]["shape"] == ["3", "64", "64"]
    assert d["operators"][0]["params"]["weights"] == {
        "shape": ["8", "6", "4", "4"],
        "bytes": "4",
        "min": "-64",
        "max": "63",
    }
    assert d["operators"][0]["params"]["rq"]["bias_kind"] == "pre"
    assert len(d["sha256"]) == 64


def test_inspect_every_operator(tmp_path):
    path = tmp_path / "every.whg1"
    path.write_bytes(write(every_op_graph()))
    r = run("inspect", "--json", str(path))
    assert r.exit_code == 0
    assert len(json.loads(r.output)["operators"]) == len(every_op_graph().ops)
    assert run("inspect", str(path)).exit_code == 0


def test_refused_file_prints_one_line_and_exits_2(tmp_path):
    bad = tmp_path / "bad.whg1"
    bad.write_bytes(b"WHG1\x02" + bytes(40))
    r = CliRunner().invoke(main, ["inspect", str(bad)])
    assert r.exit_code == 2
    assert r.output.strip().count("\n") == 0
    assert r.output.strip() == f"{bad}: model_mismatch: header byte 4: version is not 1"
    assert "Traceback" not in r.output


def test_missing_file_exits_2(tmp_path):
    r = run("inspect", str(tmp_path / "nope.whg1"))
    assert r.exit_code == 2
    assert ": not-found: " in r.output


def test_help_reads_like_a_manual():
    r = run("--help")
    assert r.exit_code == 0 and "inspect" in r.output
    assert "§10.5" in run("inspect", "--help").output


# --- run ------------------------------------------------------------------------------------


def _graph_file(tmp_path):
    from _helpers import accumulator

    path = tmp_path / "acc.whg1"
    path.write_bytes(write(accumulator()))
    return str(path)


def _decode_file(tmp_path, doc):
    path = tmp_path / "decode.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def tensor(values):
    return {"data": [str(v) for v in values], "shape": ["1", "1", str(len(values))]}


def test_run_sequence_json_carries_state_past_a_refusal(tmp_path):
    doc = [
        {"inputs": [tensor([1, 2])], "scalars": []},
        {"inputs": [{"data": [11, 0], "shape": [1, 1, 2]}], "scalars": []},
        {"inputs": [tensor([2, -2])], "scalars": [], "expect": {"refuse": "x"}},
    ]
    r = run("run", _graph_file(tmp_path), "--decode", _decode_file(tmp_path, doc), "--json")
    assert r.exit_code == 1
    assert r.output == (
        '[{"outputs":[{"data":["4","5"],"shape":["1","1","2"]}]},'
        '{"refuse":"field_range"},'
        '{"outputs":[{"data":["6","3"],"shape":["1","1","2"]}]}]\n'
    )


def test_run_one_decode_exits_0(tmp_path):
    doc = {"inputs": [tensor([-10, 10])], "scalars": []}
    r = run("run", _graph_file(tmp_path), "--decode", _decode_file(tmp_path, doc), "--json")
    assert r.exit_code == 0
    assert json.loads(r.output) == {"outputs": [{"data": ["-7", "13"], "shape": ["1", "1", "2"]}]}
    text = run("run", _graph_file(tmp_path), "--decode", _decode_file(tmp_path, doc))
    assert text.output == "decode 0: out0 [1, 1, 2] in [-7, 13]\n"


def test_run_values_prints_each_output_s_values(tmp_path):
    doc = {"inputs": [tensor([-10, 10])], "scalars": []}
    r = run("run", _graph_file(tmp_path), "--decode", _decode_file(tmp_path, doc), "--values")
    assert r.exit_code == 0
    assert r.output == "decode 0: out0 [1, 1, 2] in [-7, 13]\n  out0 channel 0:\n    -7 13\n"


def test_run_literal_agrees(tmp_path):
    doc = {"inputs": [tensor([-10, 10])], "scalars": []}
    args = ("run", _graph_file(tmp_path), "--decode", _decode_file(tmp_path, doc), "--json")
    assert run(*args).output == run(*args, "--literal").output


def test_run_refused_graph_prints_its_code(tmp_path):
    bad = tmp_path / "bad.whg1"
    bad.write_bytes(b"WHG1\x01\x01" + bytes(30))
    r = run("run", str(bad), "--decode", _decode_file(tmp_path, {"inputs": []}), "--json")
    assert r.exit_code == 2 and r.output == '{"refuse":"model_mismatch"}\n'


@pytest.mark.parametrize(
    "doc, match",
    [
        ("not json", "not JSON"),
        ({"inputs": [{"data": [1], "shape": [1, 1, 2]}]}, "1 values for shape [1, 1, 2]"),
        ({"inputs": [{"data": [1.5], "shape": [1, 1, 1]}]}, "1.5 is not an integer"),
        ({"inputs": [{"data": ["01"], "shape": [1, 1, 1]}]}, "not a decimal integer"),
        ({"inputs": [{"data": [True], "shape": [1, 1, 1]}]}, "True is not an integer"),
        ({"inputs": []}, "takes 1 data inputs and 0 scalars"),
        ({"inputs": [{"data": [], "shape": [1, -1, 0]}]}, "is not three sizes"),
        ({"inputs": [{"data": [], "shape": [1, 2**40, 2**40]}]}, "0 values for shape"),
        ([1], "a decode is an object"),
    ],
)
def test_run_malformed_decode_exits_2(tmp_path, doc, match):
    r = run("run", _graph_file(tmp_path), "--decode", _decode_file(tmp_path, doc))
    assert r.exit_code == 2
    assert match in r.output and "Traceback" not in r.output


# --- targets and rewrite ----------------------------------------------------------------------


def test_targets_list_and_show():
    assert "npu-int8" in run("targets", "list").output
    r = run("targets", "show", "npu-int8")
    assert r.exit_code == 0 and "half_up; shifts 0..31" in r.output
    assert run("targets", "show", "tpu").exit_code == 2


@with_extra("onnxruntime", "ort")
def test_rewrite_writes_the_result_and_says_what_changed(tmp_path):
    out = tmp_path / "out.whg1"
    r = run("rewrite", EXAMPLE, "--target", "ort-cpu", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "node 0 conv_transpose: transposed convolution → phase convolutions: applied" in r.output
    assert "fits ort-cpu" in r.output
    from waiexport import read

    assert [op.name for op in read(out.read_bytes()).ops] == [
        "conv",
        "pixel_shuffle",
        "relu",
        "conv",
        "pixel_shuffle",
        "clamp",
    ]
    r = run("rewrite", EXAMPLE, "--target", "npu-int8", "-o", str(out), "--json")
    assert r.exit_code == 1
    d = json.loads(r.output)
    assert d["target"] == "npu-int8" and d["fits"] is False
    assert {x["op"] for x in d["mapped_at_export"]} == {"pixel_shuffle"}
    assert "(conv): a multiply operand of 13 bits" in d["reasons"][0]
    assert run("rewrite", EXAMPLE, "--target", "nope", "-o", str(out)).exit_code == 2


# --- export and the onnxruntime engine --------------------------------------------------------


@with_extra("onnxruntime", "ort")
def test_export_writes_a_self_checked_model(tmp_path):
    out = tmp_path / "m.onnx"
    r = run("export", EXAMPLE, "--target", "ort-cpu", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "bit-exact against the reference" in r.output
    import onnx

    onnx.checker.check_model(onnx.load(str(out)), full_check=True)


@with_extra("onnxruntime", "ort")
def test_export_refuses_a_graph_outside_the_subset(tmp_path):
    from waiexport.builder import GraphBuilder

    b = GraphBuilder()
    b.output(b.op("softmax", b.input(1, -5, 5, max_h=1, max_w=4)))
    path = tmp_path / "s.whg1"
    path.write_bytes(write(b.build()))
    r = run("export", str(path), "-o", str(tmp_path / "m.onnx"))
    assert r.exit_code == 1 and "does-not-fit" in r.output and "does not meet acc32" in r.output
    r = run("export", str(path), "--target", "npu-int8", "-o", str(tmp_path / "m.onnx"))
    assert r.exit_code == 1 and "does-not-fit" in r.output and "op:softmax" in r.output
    assert not (tmp_path / "m.onnx").exists()


@with_extra("onnxruntime", "ort")
def test_run_on_the_onnxruntime_engine_matches_the_reference(tmp_path):
    doc = [
        {"inputs": [tensor([1, 2])], "scalars": []},
        {"inputs": [tensor([11, 0])], "scalars": []},
        {"inputs": [tensor([2, -2])], "scalars": []},
    ]
    g, d = _graph_file(tmp_path), _decode_file(tmp_path, doc)
    ref = run("run", g, "--decode", d, "--json")
    ort_ = run("run", g, "--decode", d, "--json", "--engine", "ort-cpu")
    assert ref.exit_code == ort_.exit_code == 1 and ref.output == ort_.output
    assert run("run", g, "--decode", d, "--engine", "tpu").exit_code == 2


@with_extra("onnxruntime", "ort")
def test_run_target_runs_another_target_s_model_on_the_engine(tmp_path):
    doc = [
        {"inputs": [tensor([1, 2])], "scalars": []},
        {"inputs": [tensor([2, -2])], "scalars": []},
    ]
    g, d = _graph_file(tmp_path), _decode_file(tmp_path, doc)
    ref = run("run", g, "--decode", d, "--json")
    other = run(
        "run", g, "--decode", d, "--json", "--engine", "onnx-reference", "--target", "ort-cpu-acc64"
    )
    assert ref.exit_code == other.exit_code == 0 and ref.output == other.output
    for target, words in (
        ("nope", "unknown target 'nope'"),
        ("tosa", "runs onnx models; target tosa's are tosa"),
    ):
        r = run("run", g, "--decode", d, "--engine", "onnx-reference", "--target", target)
        assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output


def test_run_reports_in_the_capabilitys_codes(tmp_path):
    # wai.neural.int_synth reports payload_malformed for every refusal of its decode (§4).
    doc = [{"inputs": [tensor([11, 0])], "scalars": []}]
    g, d = _graph_file(tmp_path), _decode_file(tmp_path, doc)
    r = run("run", g, "--decode", d, "--json", "--capability", "wai.neural.int_synth")
    assert r.exit_code == 1 and r.output == '[{"refuse":"payload_malformed"}]\n'
    assert run("run", g, "--decode", d, "--json").output == '[{"refuse":"field_range"}]\n'


def test_inspect_lists_every_tensor_and_gives_no_range_for_a_derived_one():
    r = run("inspect", EXAMPLE)
    tail = r.output.split("\ntensors\n")[1].splitlines()
    assert tail == [
        "  0: [8, 16, 16] check [-128, 127]",
        "  1: [6, 32, 32] derived",
        "  2: [6, 32, 32] derived",
        "  3: [3, 64, 64] derived",
        "  4: [3, 64, 64] derived",
    ]
    tensors = json.loads(run("inspect", EXAMPLE, "--json").output)["tensors"]
    assert tensors[0]["lo"] == "-128" and tensors[1]["lo"] is None and tensors[1]["hi"] is None


@with_extra("onnxruntime", "ort")
def test_rewrite_names_a_node_the_same_way_on_every_line(tmp_path):
    r = run("rewrite", EXAMPLE, "--target", "npu-int8", "-o", str(tmp_path / "r.whg1"))
    # node 2 is a conv_transpose; the conv its floor → half_up changed is node 3 now
    assert "  node 2 (now 3) conv: floor → half_up: applied" in r.output
    assert "  node 2 conv: floor" not in r.output
    assert "does not fit: does not fit" not in r.output


@with_extra("onnxruntime", "ort")
def test_export_and_rewrite_give_a_change_in_one_json_shape(tmp_path):
    rw = json.loads(
        run("rewrite", EXAMPLE, "--target", "tosa", "-o", str(tmp_path / "r.whg1"), "--json").output
    )["changes"]
    ex = json.loads(run("export", EXAMPLE, "-o", str(tmp_path / "m.onnx"), "--json").stdout)[
        "rewrites"
    ]
    assert ex and set(ex[0]) == set(rw[0]) == {"applied", "node", "op", "reason", "rewrite"}


def test_targets_list_and_show_name_the_format_alike():
    listed = json.loads(run("targets", "list", "--json").output)
    shown = json.loads(run("targets", "show", "tosa", "--json").output)
    assert next(t for t in listed if t["name"] == "tosa")["format"] == shown["format"] == "tosa"


def test_progress_shows_on_a_terminal_and_keeps_a_log_clean(monkeypatch):
    import io
    import sys

    from waiexport.cli.common import progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        with progress(3, "packing for ort-cpu") as bar:
            bar.update(3)
        assert ("packing for ort-cpu" in stream.getvalue()) == shown
