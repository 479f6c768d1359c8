"""Every mistake a user can make at the command line ends in one line, ``WHAT: CODE: WHERE:
WHY``, and exit 2: never a traceback, never click's usage block."""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from waiexport.cli import main

from _helpers import ROOT

G = str(ROOT / "examples" / "tiny_synth.whg1")
SYNTH = str(ROOT / "examples" / "int_synth.json")
JPEGAI = str(ROOT / "examples" / "jpegai")
VECTORS = str(ROOT / "conformance" / "corpus" / "vectors" / "relu.jsonl")


@pytest.fixture(scope="module")
def decodes(tmp_path_factory):
    d = tmp_path_factory.mktemp("decodes")
    files = {
        "ok": {"inputs": [{"data": [0] * 128, "shape": [8, 4, 4]}]},
        "empty": [],
        "long": {"inputs": [{"data": ["1" * 400] + [0] * 127, "shape": [8, 4, 4]}]},
        "huge": {"inputs": [{"data": ["1" * 4301] + [0] * 127, "shape": [8, 4, 4]}]},
        "short": {"inputs": [{"data": [0] * 3, "shape": [8, 4, 4]}]},
    }
    for name, doc in files.items():
        (d / f"{name}.json").write_text(json.dumps(doc))
    (d / "bad.json").write_text("{")
    return d


def cases(d):
    return [
        ["export", G, "-o", "/proc/x.onnx"],
        ["export", G, "-o", "/nonexistent_dir/x.onnx"],
        ["export", G, "-o", ""],
        ["rewrite", G, "--target", "ort-cpu", "-o", "/proc/x.whg1"],
        ["lower", "int_synth", SYNTH, "-o", "/proc/d"],
        ["lower", "int_synth", JPEGAI, "-o", str(d / "D")],
        ["lower", "jpegai", SYNTH, "-o", str(d / "D")],
        ["check", G, "--certificate", "/nonexistent/c.json"],
        ["examples", "make", "/proc/ex"],
        ["vectors", "generate", "/proc/v"],
        ["vectors", "check", "/nonexistent"],
        ["run", G, "--decode", str(d / "ok.json"), "--engine", "npu-int8"],
        ["check", "/nonexistent.whg1"],
        ["check", str(d)],
        ["inspect", SYNTH],
        ["run", G, "--decode", str(d / "empty.json")],
        ["run", G, "--decode", str(d / "bad.json")],
        ["run", G, "--decode", str(d / "huge.json")],
        ["run", G, "--decode", str(d / "short.json")],
        ["run", G, "--decode", str(d / "ok.json"), "--capability", "bogus.cap"],
        ["run", G],
        ["validate", "--engine", "nope"],
        ["export", G, "--target", "nope", "-o", str(d / "x")],
        ["targets", "show", "nope"],
        # options that conflict (issue 31.6) or do not parse, refused before any work (31.9)
        ["export", G, "--target", "tosa", "-o", str(d / "x"), "--size", "axb"],
        ["validate", "--engine", "ort-cpu", "--time-limit", "nan", VECTORS],
        ["validate", "--engine", "ort-cpu", "--memory-limit", "inf", VECTORS],
        ["validate", "--engine", "tosa-ref", "--memory-limit", "1e300", VECTORS],
        ["validate", "--engine", "tosa-ref", "--time-limit", "1e300", VECTORS],
        ["validate", "--pack", str(d), VECTORS],
        ["validate", "--results", str(d), "--pack", str(d), "--engine", "ort-cpu"],
        ["validate", "--results", str(d), "--pack-sha256", "0" * 64, "--locate"],
        ["export", G, "--size", "4x4", "-o", str(d / "x.onnx")],
        [
            "export",
            G,
            "--target",
            "tosa",
            "--size",
            "4x4",
            "--size",
            "4x4",
            "-o",
            str(d / "x.tosa"),
        ],
        ["export", G, "-o", str(d / "x.tosa")],
        ["check", G, "--target", "bogus"],
        _jpegai(soz="/nonexistent.bin"),
        _jpegai(output="/proc/decoded"),
        _jpegai(grfs_y=str(d / "ok.json")),
    ]


def _jpegai(output="/tmp/waiexport-decoded", **files):
    streams = Path(JPEGAI) / "streams"
    args = ["jpegai", "decode", JPEGAI, "--no-validate", "-o", output]
    for name in ("soz", "sorp", "sors", "grfs_y", "grfs_uv"):
        default = streams / (f"{name}.txt" if name.startswith("grfs") else f"{name}.bin")
        args += [f"--{name.replace('_', '-')}", str(files.get(name, default))]
    return args


#: How many cases :func:`cases` gives.
CASES = 39


def test_every_case_is_run(decodes):
    assert len(cases(decodes)) == CASES


@pytest.mark.parametrize("k", range(CASES))
def test_one_line_and_exit_2(decodes, k):
    args = cases(decodes)[k]
    r = CliRunner().invoke(main, args)
    lines = [line for line in r.output.splitlines() if not line.startswith(("rewrite:", "WARNING"))]
    assert r.exit_code == 2, (args, r.output)
    if k >= 24:  # refused before any work: nothing else printed
        assert len(r.output.splitlines()) == 1, r.output
    assert len(lines) == 1 and "Traceback" not in r.output and "Usage:" not in r.output, (
        args,
        r.output,
    )
    assert len(lines[0].split(": ")) >= 4, lines[0]
    assert len(lines[0]) < 600


def test_a_json_file_given_for_a_graph_says_which_command_takes_it():
    r = CliRunner().invoke(main, ["check", SYNTH])
    assert r.exit_code == 2 and "waiexport lower int_synth" in r.output


def test_a_long_number_is_not_echoed_whole(decodes):
    r = CliRunner().invoke(main, ["run", G, "--decode", str(decodes / "long.json")])
    assert "(400 digits)" in r.output and "1" * 50 not in r.output


@pytest.mark.parametrize(
    "command",
    [
        "inspect",
        "run",
        "check",
        "rewrite",
        "export",
        "lower",
        "validate",
        "targets list",
        "targets show",
        "vectors generate",
        "vectors check",
        "examples make",
        "examples run",
    ],
)
def test_every_help_gives_exit_codes_and_an_example(command):
    r = CliRunner().invoke(main, [*command.split(), "--help"])
    assert r.exit_code == 0 and "Exit status" in r.output and "Example: waiexport" in r.output


def test_engine_lists_come_from_the_registry():
    from waiexport.targets.engines import ENGINES

    for command in ("run", "validate", "jpegai decode"):
        text = " ".join(CliRunner().invoke(main, [*command.split(), "--help"]).output.split())
        text = text.replace("- ", "-")  # help text wraps at a name's hyphen
        assert all(f"{e.name}: {e.help}" in text for e in ENGINES), (command, text)
    r = CliRunner().invoke(main, ["validate", "--engine", "nope"])
    assert r.exit_code == 2 and all(e.name in r.output for e in ENGINES)


def test_a_missing_optional_tool_is_one_line(tmp_path):
    # as on a base install without the tosa extra: every tosa path says how to get it
    import subprocess
    import sys

    # modules that refuse to import, first on the path of this process and of its workers
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    for name in ("tosa_serializer", "tosa_reference_model"):
        (blocked / f"{name}.py").write_text("raise ImportError('not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(blocked)}
    for args in (
        [
            "export",
            SYNTH.replace("int_synth.json", "tiny_synth.whg1"),
            "--target",
            "tosa",
            "-o",
            str(tmp_path / "m.tosa"),
            "--size",
            "4x4",
        ],
        ["validate", "--engine", "tosa-ref"],
        ["check", G, "--target", "tosa"],
    ):
        r = subprocess.run(
            [sys.executable, "-m", "waiexport.cli", *args], capture_output=True, text=True, env=env
        )
        assert r.returncode == 2 and "Traceback" not in r.stderr, (args, r.stderr)
        assert "pip install 'waiexport[tosa]'" in r.stderr, (args, r.stderr)
    # what needs more than tosa-tools names the extra that brings it all
    for args, extra in (
        (["validate", "--engine", "iree-cpu"], "iree"),
        (["export", G, "--target", "ethos-u55-128", "-o", str(tmp_path / "u")], "vela"),
    ):
        r = subprocess.run(
            [sys.executable, "-m", "waiexport.cli", *args], capture_output=True, text=True, env=env
        )
        assert r.returncode == 2 and f"pip install 'waiexport[{extra}]'" in r.stderr, r.stderr
    vela = (
        "import sys, importlib.util as u; find = u.find_spec; "
        "u.find_spec = lambda n, *a: None if n == 'ethosu' else find(n, *a); "
        "from waiexport.cli import main; main()"
    )
    for args in (
        ["export", G, "--target", "ethos-u85-256", "-o", str(tmp_path / "v"), "--size", "4x4"],
        [
            "vectors",
            "pack",
            "--target",
            "ethos-u85-256",
            str(tmp_path / "p"),
            SYNTH.replace("examples/int_synth.json", "conformance/corpus/vectors/relu.jsonl"),
        ],
    ):
        r = subprocess.run([sys.executable, "-c", vela, *args], capture_output=True, text=True)
        assert r.returncode == 2 and "pip install 'waiexport[vela]'" in r.stderr, r.stderr


def test_an_onnxruntime_error_on_a_run_is_one_line_with_its_reason(tmp_path, monkeypatch, decodes):
    # a conv_transpose of stride 2^32 - 1 on a 1x1 input made onnxruntime fail to allocate
    # its uncropped plane (a fuzz run found it): its error ended run and export in a traceback
    from onnxruntime.capi.onnxruntime_pybind11_state import Fail
    import waiexport.targets.onnx.format as fmt

    real = fmt._offline

    class Failing:
        def __init__(self, session):
            self._s = session

        def __getattr__(self, name):
            return getattr(self._s, name)

        def run(self, names, feed):
            raise Fail(
                "[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while "
                "running Pad node. Name:'op0/pad_22' Status Message: /onnxruntime_src/"
                "onnxruntime/core/framework/bfc_arena.cc:360 void* onnxruntime::BFCAren"
                "a::AllocateRawInternal(size_t, bool, onnxruntime::Stream*) Failed to "
                "allocate memory for requested buffer of size 34359738368"
            )

    monkeypatch.setattr(fmt, "_offline", lambda *a, **k: Failing(real(*a, **k)))
    why = (
        "onnxruntime: FAIL : Non-zero status code returned while running Pad node. "
        "Name:'op0/pad_22' Status Message: Failed to allocate memory for requested buffer "
        "of size 34359738368"
    )
    for args, code, said in (
        (
            ["run", G, "--decode", str(decodes / "ok.json"), "--engine", "ort-cpu"],
            2,
            f"--engine ort-cpu: engine-failure: decode 0: {why}",
        ),
        (
            ["export", G, "-o", str(tmp_path / "m.onnx")],
            1,
            f"self-check on onnxruntime's CPU provider failed: decode 0: {why}",
        ),
    ):
        r = CliRunner().invoke(main, args)
        lines = [
            x for x in r.output.splitlines() if x.strip() and not x.startswith("rewrite: ")
        ]  # export's account of its rewrites
        assert r.exit_code == code and lines == [said], r.output


def test_wording_a_missing_results_json_a_refused_export_and_a_float_flag(tmp_path):
    """A missing results.json was "is not JSON ... cannot be read"; export printed "does not
    fit: model_mismatch" where the README documents does-not-fit; a GRFS flag 1.0 was taken;
    vectors pack --help described results.json and the output paths otherwise than the
    README."""
    from waiexport.capabilities.examples import boundary_sets
    from waiexport.capabilities.jpegai_entropy import read_flags
    from waiexport import Refusal
    import shutil

    pack = tmp_path / "pack"
    r = CliRunner().invoke(main, ["vectors", "pack", str(pack), VECTORS])
    if r.exit_code == 0:  # where onnxruntime is installed
        shutil.copytree(pack, tmp_path / "results")
        r = CliRunner().invoke(
            main, ["validate", "--results", str(tmp_path / "results"), "--pack", str(pack), VECTORS]
        )
        assert "results.json is missing" in r.output and "not JSON" not in r.output, r.output
    src = tmp_path / "s.json"
    src.write_bytes(boundary_sets()["int_synth_acc32_one_weight_past.json"])
    assert (
        CliRunner()
        .invoke(main, ["lower", "int_synth", str(src), "-o", str(tmp_path / "o")])
        .exit_code
        == 0
    )
    r = CliRunner().invoke(
        main, ["export", str(tmp_path / "o" / "synth.whg1"), "-o", str(tmp_path / "m.onnx")]
    )
    assert r.exit_code in (1, 2) and ": does-not-fit: " in r.output, r.output
    with pytest.raises(Refusal, match="a flag is not 0, 1, true or false"):
        read_flags(b"[1.0, 0]", 2, "flags")
    assert read_flags(b"[true, 0]", 2, "flags") == [True, False]
    text = " ".join(CliRunner().invoke(main, ["vectors", "pack", "--help"]).output.split())
    assert '{"pack": IDENTITY, "path": "RUNTIME:KERNELS", "ran_on": "..."}' in text
    assert "outputs/<key>/" in text and "waiexport/runner.py" in text


THROWAWAY = """
from waiexport.targets.engines.reference import ReferenceEngine

REGISTRY = ({"name": "throwaway", "help": "a throwaway engine, the reference by another name",
             "cls": "Throwaway"},)


class Throwaway(ReferenceEngine):
    name = "throwaway"
"""


def test_a_new_engine_module_needs_no_edit_elsewhere(tmp_path, monkeypatch):
    # a module beside the others, holding its class and its REGISTRY entry, is an engine:
    # listed in every --engine help, made by name, validated by the command line
    import waiexport.targets.engines as engines
    from _helpers import ROOT

    (tmp_path / "throwaway.py").write_text(THROWAWAY)
    monkeypatch.setattr(engines, "__path__", [*engines.__path__, str(tmp_path)])
    engines.declared.cache_clear()
    try:
        assert "throwaway" in engines.names()
        text = " ".join(CliRunner().invoke(main, ["validate", "--help"]).output.split())
        assert "throwaway: a throwaway engine" in text
        r = CliRunner().invoke(
            main,
            [
                "validate",
                str(ROOT / "conformance" / "corpus" / "vectors" / "relu.jsonl"),
                "--engine",
                "throwaway",
                "--json",
            ],
        )
        assert r.exit_code == 0, r.output
        assert '"engine":"throwaway"' in r.output
    finally:
        engines.declared.cache_clear()
