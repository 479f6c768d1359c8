"""The jobs as a library (:mod:`waiexport.jobs`, re-exported from ``waiexport``): called from
a folder other than the checkout, on the bundled examples, each result's ``to_json()`` is
the command's ``--json`` output byte for byte, and its ``ok`` the command's exit status."""

import json

import pytest
from click.testing import CliRunner

import waiexport
from waiexport.cli import main

from _helpers import ROOT

TINY = str(ROOT / "examples" / "tiny_synth.whg1")


def _cli(args) -> tuple[str, int]:
    result = CliRunner().invoke(main, args)
    return result.output, result.exit_code


@pytest.mark.parametrize(
    "options, args",
    [
        ({}, []),
        ({"subset": "full"}, ["--subset", "full"]),
        (
            {"profile": "acc64", "capability": "demo"},
            ["--profile", "acc64", "--capability", "demo"],
        ),
        ({"target": "tosa"}, ["--target", "tosa"]),
        (
            {"target": "ort-cpu", "roles": ["a", "b"]},
            ["--target", "ort-cpu", "--role", "a", "--role", "b"],
        ),
    ],
)
def test_check_is_the_command_s_json(tmp_path, monkeypatch, options, args):
    monkeypatch.chdir(tmp_path)
    files = [TINY, TINY] if "roles" in options else [TINY]
    result = waiexport.check(files, **options)
    out, code = _cli(["check", *files, *args, "--json"])
    assert result.to_json() + "\n" == out
    assert code == (0 if result.ok else 1)
    assert json.loads(out)["meets"] == result.meets


def test_check_takes_bytes_and_raises_what_the_command_maps():
    from waiexport import Refusal

    data = (ROOT / "examples" / "tiny_synth.whg1").read_bytes()
    assert (
        waiexport.check([data], roles=["tiny_synth"]).to_json() == waiexport.check([TINY]).to_json()
    )
    with pytest.raises(Refusal):
        waiexport.check([data[:40]])
    with pytest.raises(ValueError):
        waiexport.check([data], set_sha256="xyz")
    with pytest.raises(KeyError):
        waiexport.check([data], target="no-such-target")


VECTORS = ROOT / "conformance" / "corpus" / "vectors"


@pytest.mark.parametrize(
    "engine, files",
    [
        ("reference", ["relu.jsonl", "crop.jsonl"]),
        ("ort-cpu", ["rescale.jsonl"]),
        ("npu-int8", ["clamp.jsonl", "pad_rep.jsonl"]),
    ],
)
def test_validate_is_the_command_s_json(tmp_path, monkeypatch, engine, files):
    monkeypatch.chdir(tmp_path)
    paths = [str(VECTORS / f) for f in files]
    result = waiexport.validate(paths, engine=engine)
    out, code = _cli(["validate", *paths, "--engine", engine, "--json"])
    assert result.to_json() + "\n" == out
    assert code == (0 if result.ok else 1)
    assert result.ran and json.loads(out)["totals"]


def test_validate_raises_what_the_command_maps(tmp_path):
    from waiexport.jobs import NothingToValidate
    from waiexport.jsonio import BadInput

    with pytest.raises(FileNotFoundError):
        waiexport.validate([str(tmp_path / "absent.jsonl")])
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(NothingToValidate):
        waiexport.validate([str(tmp_path / "empty.jsonl")])
    (tmp_path / "bad.jsonl").write_text("{\n")
    with pytest.raises(BadInput):
        waiexport.validate([str(tmp_path / "bad.jsonl")])
    with pytest.raises(KeyError):
        waiexport.validate([str(VECTORS / "relu.jsonl")], engine="no-such-engine")


@pytest.mark.parametrize(
    "target, suffix, sizes",
    [
        ("ort-cpu", ".onnx", ()),
        ("ort-cpu-acc64", ".onnx", ()),
        ("openvino-cpu", ".onnx", ()),
        ("tosa", ".tosa", ((8, 8),)),
    ],
)
def test_export_is_the_command_s_json(tmp_path, monkeypatch, target, suffix, sizes):
    if target == "openvino-cpu":
        pytest.importorskip("openvino", reason="needs OpenVINO: pip install 'waiexport[openvino]'")
    if target == "tosa":
        pytest.importorskip(
            "tosa_serializer", reason="needs tosa-tools: pip install 'waiexport[tosa]'"
        )
    monkeypatch.chdir(tmp_path)
    out_path = f"model{suffix}"
    result = waiexport.export(TINY, out_path, target=target, sizes=sizes)
    written = (tmp_path / out_path).read_bytes()
    out, code = _cli(
        [
            "export",
            TINY,
            "--target",
            target,
            "-o",
            out_path,
            "--json",
            *[a for h, w in sizes for a in ("--size", f"{h}x{w}")],
        ]
    )
    assert code == 0, out
    assert result.to_json() + "\n" == out
    assert (tmp_path / out_path).read_bytes() == written
    text, _ = _cli(
        [
            "export",
            TINY,
            "--target",
            target,
            "-o",
            out_path,
            *[a for h, w in sizes for a in ("--size", f"{h}x{w}")],
        ]
    )
    assert result.text() + "\n" == text


def test_export_raises_what_the_command_maps(tmp_path):
    from waiexport import Refusal
    from waiexport.builder import GraphBuilder
    from waiexport.jobs import SizeRefused
    from waiexport.targets.errors import DoesNotFit

    data = (ROOT / "examples" / "tiny_synth.whg1").read_bytes()
    with pytest.raises(Refusal):
        waiexport.export(data[:40], tmp_path / "m.onnx")
    with pytest.raises(DoesNotFit, match="node 2 .* 13 bits"):
        waiexport.export(data, tmp_path / "m.onnx", target="npu-int8")
    out, code = _cli(["export", TINY, "--target", "npu-int8", "-o", str(tmp_path / "m.onnx")])
    assert code == 1 and "node 2 (now 3) (conv): a multiply operand of 13 bits" in out
    with pytest.raises(KeyError):
        waiexport.export(data, tmp_path / "m.onnx", target="no-such-target")
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -128, 127)))
    with pytest.raises(SizeRefused):
        pytest.importorskip("tosa_serializer")
        waiexport.export(b.build(), tmp_path / "m.tosa", target="tosa", sizes=[(1 << 13, 1 << 14)])
    assert not (tmp_path / "m.onnx").exists() and not (tmp_path / "m.tosa").exists()


@pytest.mark.parametrize("target", ["ort-cpu", "tosa", "npu-int8"])
def test_rewrite_is_the_command_s_json(tmp_path, monkeypatch, target):
    monkeypatch.chdir(tmp_path)
    result = waiexport.rewrite(TINY, target=target)
    out, code = _cli(["rewrite", TINY, "--target", target, "-o", "out.whg1", "--json"])
    assert result.to_json() + "\n" == out
    assert code == (0 if result.fit.fits else 1)
    assert (tmp_path / "out.whg1").read_bytes() == result.data
    text, _ = _cli(["rewrite", TINY, "--target", target, "-o", "out.whg1"])
    assert text == "\n".join([f"{TINY} → out.whg1 for {target}", *result.lines()]) + "\n"


DECODE = str(ROOT / "examples" / "tiny_synth_decode.json")


@pytest.mark.parametrize("engine", ["reference", "ort-cpu"])
@pytest.mark.parametrize("sequence", [False, True])
def test_run_is_the_command_s_json(tmp_path, monkeypatch, engine, sequence):
    monkeypatch.chdir(tmp_path)
    decode = DECODE
    if sequence:
        one = json.loads((ROOT / "examples" / "tiny_synth_decode.json").read_text())
        (tmp_path / "seq.json").write_text(json.dumps([one, one]))
        decode = "seq.json"
    result = waiexport.run(TINY, decode, engine=engine)
    out, code = _cli(["run", TINY, "--decode", decode, "--engine", engine, "--json"])
    assert result.to_json() + "\n" == out
    assert code == (0 if result.ok else 1)
    assert isinstance(json.loads(out), list) == sequence


def test_run_raises_what_the_command_maps(tmp_path):
    from waiexport.jsonio import BadInput

    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(BadInput, match="nothing to run"):
        waiexport.run(TINY, tmp_path / "bad.json")
    with pytest.raises(BadInput, match="decode 0"):
        waiexport.run(TINY, {"inputs": []})
    with pytest.raises(KeyError):
        waiexport.run(TINY, DECODE, engine="no-such-engine")


@pytest.mark.parametrize(
    "form, source", [("int_synth", "examples/int_synth.json"), ("jpegai", "examples/jpegai")]
)
def test_lower_is_the_command_s_json(tmp_path, monkeypatch, form, source):
    monkeypatch.chdir(tmp_path)
    result = waiexport.lower(form, ROOT / source, "mine")
    out, code = _cli(["lower", form, str(ROOT / source), "-o", "theirs", "--json"])
    assert code == 0, out
    assert result.to_json().replace("mine", "theirs") + "\n" == out
    for name, data in result.files.items():
        assert (tmp_path / "mine" / name).read_bytes() == data
        assert (tmp_path / "theirs" / name).read_bytes() == data
    (tmp_path / "someone").mkdir()
    (tmp_path / "someone" / "notes.txt").write_text("mine")
    from waiexport.files import NotOurs

    with pytest.raises(NotOurs):
        waiexport.lower(form, ROOT / source, "someone")
    assert (tmp_path / "someone" / "notes.txt").read_text() == "mine"


STREAMS = ROOT / "examples" / "jpegai" / "streams"


@pytest.mark.parametrize("engine, compare", [("reference", False), ("ort-cpu", True)])
def test_jpegai_decode_is_the_command_s_json(tmp_path, monkeypatch, engine, compare):
    from _helpers import jpegai_args

    monkeypatch.chdir(tmp_path)
    result = waiexport.jpegai_decode(
        ROOT / "examples" / "jpegai",
        *(STREAMS / f for f in ("soz.bin", "sorp.bin", "sors.bin", "grfs_y.txt", "grfs_uv.txt")),
        engine=engine,
        compare=compare,
        validate=False,
        output="mine",
    )
    out, code = _cli(
        jpegai_args("theirs") + ["--engine", engine, "--json"] + (["--compare"] if compare else [])
    )
    assert result.to_json() + "\n" == out
    assert code == (0 if result.ok else 1)
    for name, data in result.files.items():
        assert (
            (tmp_path / "mine" / name).read_bytes()
            == data
            == (tmp_path / "theirs" / name).read_bytes()
        )


def test_jpegai_decode_names_the_input_it_refuses(tmp_path):
    from waiexport.jobs import InputRefused

    streams = [
        (STREAMS / f).read_bytes()
        for f in ("soz.bin", "sorp.bin", "sors.bin", "grfs_y.txt", "grfs_uv.txt")
    ]
    with pytest.raises(InputRefused) as e:
        waiexport.jpegai_decode(
            ROOT / "examples" / "jpegai", *streams[:3], b"0101", streams[4], validate=False
        )
    assert e.value.which == "grfs_y" and e.value.refusal.code == "model_mismatch"
    with pytest.raises(InputRefused) as e:
        waiexport.jpegai_decode(ROOT / "examples" / "jpegai", b"", *streams[1:], validate=False)
    assert e.value.which == "SOZ"
