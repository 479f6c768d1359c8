"""Arm Ethos-U through Vela: what fits is refused or compiled by our description before Vela
runs, and what compiles runs wholly on the NPU."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from waiexport import params as P
from waiexport import write
from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
from waiexport.files import MARK
from waiexport.cli import main
from waiexport.descriptions import target
from waiexport.targets.exporter import fit

from _helpers import needs

needs("ethosu.vela", "vela")


def _export(tmp_path, g, name, *args):
    src = tmp_path / f"{name}.whg1"
    src.write_bytes(write(g))
    return CliRunner().invoke(
        main, ["export", str(src), "-o", str(tmp_path / name), "--json", *args]
    )


def _conv_relu():
    b = GraphBuilder()
    w = np.random.default_rng(0).integers(-128, 128, (8, 4, 3, 3))
    y = b.op(
        "conv",
        b.input(4, -128, 127, max_h=8, max_w=8),
        conv(w, pad=1, rq=rq(shift=10, bias=list(range(8)), round="half_up")),
    )
    b.output(b.op("relu", y))
    return b.build()


@pytest.mark.parametrize("name", ["ethos-u55-128", "ethos-u85-256"])
def test_a_graph_that_fits_compiles_wholly_onto_the_npu(tmp_path, name):
    r = _export(tmp_path, _conv_relu(), "g", "--target", name)
    assert r.exit_code == 0, r.output
    vela = json.loads(r.stdout)["vela"]
    assert int(vela["cpu_operators"]) == 0 and int(vela["npu_operators"]) > 0
    assert int(vela["cycles_npu"]) > 0 and (tmp_path / "g" / "g_vela.tflite").exists()
    assert "not checked" in vela["numerics"]


def _lut():
    b = GraphBuilder()
    table = np.arange(-32768, 32768) // 3
    table[0] = 0
    b.output(
        b.op(
            "lut16",
            b.input(2, -1000, 1000, max_h=4, max_w=4),
            P.Lut16(e_in=None, e_out=None, table=table),
        )
    )
    return b.build()


def test_a_table_lookup_is_refused_for_u55_by_node_and_reason_and_compiles_for_u85(tmp_path):
    verdict = fit(write(_lut()), target("ethos-u55-128"))
    assert not verdict.fits and "node 0 (lut16): no table lookup" in verdict.reasons[0]
    r = _export(tmp_path, _lut(), "u55", "--target", "ethos-u55-128")
    assert r.exit_code == 1 and "node 0 (lut16)" in r.output
    r = _export(tmp_path, _lut(), "u85", "--target", "ethos-u85-256")
    assert r.exit_code == 0, r.output
    assert int(json.loads(r.stdout)["vela"]["cpu_operators"]) == 0


def _transposed(k, stride, pad):
    b = GraphBuilder()
    w = np.random.default_rng(1).integers(-100, 100, (2, 3, k, k))
    b.output(
        b.op(
            "conv_transpose",
            b.input(2, -128, 127, max_h=4, max_w=4),
            conv_transpose(w, stride=stride, pad=pad, rq=rq(shift=8, round="half_up")),
        )
    )
    return b.build()


def test_a_transposed_convolution_of_stride_4_on_u55():
    # k4 s4 p0: the output is the stride times the input, so phase convolutions take it (§9.3)
    rewritten = fit(write(_transposed(4, 4, 0)), target("ethos-u55-128"))
    assert rewritten.fits
    assert [op.name for op in rewritten.export.graph.ops] == ["conv", "pixel_shuffle"]
    # k5 s4 p1: no exact phase form fits, and the unit takes strides 1 and 2: refused by name
    refused = fit(write(_transposed(5, 4, 1)), target("ethos-u55-128"))
    assert (
        not refused.fits and "node 0 (conv_transpose): transposed stride 4x4" in refused.reasons[0]
    )
    assert fit(write(_transposed(5, 4, 1)), target("ethos-u85-256")).fits


def test_a_row_chosen_at_run_time_is_refused_for_u55_and_compiles_for_u85(tmp_path):
    b = GraphBuilder()
    k = b.scalar(0, 2)
    table = np.array([[3, 2**31 - 1], [0, 7], [12345, 1]])
    b.output(
        b.op(
            "chscale",
            b.input(2, -1000, 1000, max_h=2, max_w=3),
            P.Chscale(scalar=k, n_rows=3, round="half_up", m_bytes=4, shift=20, table=table),
        )
    )
    g = b.build()
    verdict = fit(write(g), target("ethos-u55-128"))
    assert not verdict.fits and "node 0 (chscale)" in verdict.reasons[0]
    r = _export(tmp_path, g, "u85", "--target", "ethos-u85-256")
    assert r.exit_code == 0 and int(json.loads(r.stdout)["vela"]["cpu_operators"]) == 0


def test_a_second_target_into_the_same_folder_replaces_the_first_cleanly(tmp_path):
    src = tmp_path / "g.whg1"
    src.write_bytes(write(_conv_relu()))
    for name in ("ethos-u55-128", "ethos-u85-256"):
        r = CliRunner().invoke(
            main, ["export", str(src), "--target", name, "-o", str(tmp_path / "D"), "--json"]
        )
        assert r.exit_code == 0, r.output
    files = sorted(p.name for p in (tmp_path / "D").iterdir())
    assert files == [
        MARK,
        "g.tosa",
        "g.tosa.json",
        "g_summary_Ethos_U85_SYS_DRAM_Mid.csv",
        "g_vela.tflite",
    ], files
    assert json.loads((tmp_path / "D" / "g.tosa.json").read_text())["wai.target"] == "ethos-u85-256"


def test_a_folder_holding_someone_s_files_is_refused_before_any_work(tmp_path, monkeypatch):
    import waiexport.targets.exporter as exporter

    def no_export(*args, **kw):
        raise AssertionError("exported into a folder that is not ours")

    monkeypatch.setattr(exporter, "export", no_export)
    # beside a tosa export's model and provenance, which an Ethos-U export also writes
    theirs = {"thesis.txt": b"mine", "m.tosa": b"\x00", "m.tosa.json": b"{}"}
    (tmp_path / "D").mkdir()
    for name, data in theirs.items():
        (tmp_path / "D" / name).write_bytes(data)
    src = tmp_path / "g.whg1"
    src.write_bytes(write(_conv_relu()))
    r = CliRunner().invoke(
        main, ["export", str(src), "--target", "ethos-u55-128", "-o", str(tmp_path / "D")]
    )
    assert r.exit_code == 2 and "not-empty" in r.output and "holds m.tosa" in r.output, r.output
    assert len(r.output.splitlines()) == 1, r.output
    assert {p.name: p.read_bytes() for p in (tmp_path / "D").iterdir()} == theirs


def test_two_exports_into_one_folder_at_once_each_report_their_own_model(tmp_path):
    import subprocess
    import sys

    b = GraphBuilder()
    w = np.random.default_rng(0).integers(-128, 128, (8, 4, 3, 3))
    b.output(b.op("conv", b.input(4, -128, 127), conv(w, pad=1, rq=rq(shift=10, round="half_up"))))
    src = tmp_path / "g.whg1"
    src.write_bytes(write(b.build()))

    def start(size, out):
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "waiexport.cli",
                "export",
                str(src),
                "--target",
                "ethos-u55-128",
                "--size",
                size,
                "-o",
                str(out),
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    alone = {
        size: json.loads(start(size, tmp_path / size).communicate()[0])["vela"]
        for size in ("4x4", "8x8")
    }
    both = {size: start(size, tmp_path / "D") for size in ("4x4", "8x8")}
    got = {size: p.communicate() for size, p in both.items()}
    for size, (out, err) in got.items():
        assert both[size].returncode == 0, err
        assert json.loads(out)["vela"]["cycles_npu"] == alone[size]["cycles_npu"]
    meta = json.loads((tmp_path / "D" / "g.tosa.json").read_text())
    size = "x".join(meta["wai.inputs"][0]["nhwc"][1:3])
    assert (tmp_path / "D" / "g_vela.tflite").read_bytes() == (
        tmp_path / size / "g_vela.tflite"
    ).read_bytes()


def test_a_large_model_is_checked_small_and_says_no_engine_runs_it_at_its_size(
    tmp_path, monkeypatch
):
    import waiexport.targets.engines as engines

    def no_worker(*args, **kw):
        raise AssertionError(f"an engine was started for a Vela model: {args}")

    monkeypatch.setattr(engines, "engine", no_worker)
    b = GraphBuilder()
    w = np.random.default_rng(0).integers(-128, 128, (8, 4, 3, 3))
    b.output(b.op("conv", b.input(4, -128, 127), conv(w, pad=1, rq=rq(shift=10, round="half_up"))))
    r = _export(tmp_path, b.build(), "g", "--target", "ethos-u55-128", "--size", "16x12")
    assert r.exit_code == 0, r.output
    check = json.loads(r.stdout)["self_check"]
    # a 3x3 conv with padding 1: its two edges and its interior all occur at 3x3
    assert check["size"] == "3x3" and check["on"] == "the TOSA reference model"
    assert check["at_model_size"]["on"] is None
    assert "no engine here runs ethos-u55-128's models" in check["at_model_size"]["said"]


def _pack(tmp_path, name, *files):
    from _helpers import ROOT

    vectors = ROOT / "conformance" / "corpus" / "vectors"
    return CliRunner().invoke(
        main,
        [
            "vectors",
            "pack",
            "--target",
            "ethos-u55-128",
            str(tmp_path / name),
            *(str(vectors / f) for f in files),
        ],
    )


PACKED = ("conv.jsonl", "relu.jsonl", "pixel_shuffle.jsonl")


def test_a_packs_vela_compiles_side_by_side_write_what_one_after_another_writes(
    tmp_path, monkeypatch
):
    import waiexport.targets.format as compiled

    for cores in (1, 2):
        monkeypatch.setattr(compiled, "cores", lambda c=cores: c)
        r = _pack(tmp_path, f"pack{cores}", *PACKED)
        assert r.exit_code == 0, r.output
    one, two = (
        {
            p.relative_to(tmp_path / f"pack{c}"): p.read_bytes()
            for p in (tmp_path / f"pack{c}").rglob("*")
            if p.is_file()
        }
        for c in (1, 2)
    )
    assert one == two and any(p.suffix == ".tflite" for p in one)


def test_a_model_vela_refuses_in_a_pack_ends_it_in_one_line_and_writes_nothing(
    tmp_path, monkeypatch
):
    import waiexport.targets.vela.step as vela_step
    from waiexport.targets.vela.compile import VelaError, compile_vela

    seen = []

    def refuses_the_second(tosa, accelerator, outdir):
        seen.append(tosa.name)
        if len(seen) == 2:
            raise VelaError("Unsupported operator (a test double's refusal)")
        return compile_vela(tosa, accelerator, outdir)

    monkeypatch.setattr(vela_step, "compile_vela", refuses_the_second)
    r = _pack(tmp_path, "pack", *PACKED)
    assert r.exit_code == 2, r.output
    assert "Vela refused a model: Unsupported operator (a test double's refusal)" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "pack").exists()
