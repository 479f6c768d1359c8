"""A command that writes a folder whole replaces one only where it provably is an earlier
output of the same command (its mark lists every file the folder holds): a user's project,
a board's results in a pack, a file named like one of ours, are ``not-empty``, exit 2,
nothing touched; a failed command leaves no folder behind."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from waiexport.cli import main
from waiexport.conformance.generate import CORPUS

from _helpers import ROOT, jpegai_args, with_extra

#: Each command that writes a folder: its arguments for the folder ``out``, and a file a
#: user may keep under a name it also writes.
WRITERS = {
    "lower": (
        lambda out: [
            "lower",
            "int_synth",
            str(ROOT / "examples" / "int_synth.json"),
            "-o",
            str(out),
        ],
        "certificate.json",
    ),
    "vectors pack": (
        lambda out: ["vectors", "pack", str(out), str(CORPUS / "vectors" / "relu.jsonl")],
        "manifest.json",
    ),
    "jpegai decode": (lambda out: jpegai_args(out), "summary.json"),
    "examples make": (lambda out: ["examples", "make", str(out)], "int_synth.json"),
}
ETHOS = (
    lambda out: [
        "export",
        str(ROOT / "examples" / "tiny_synth.whg1"),
        "--target",
        "ethos-u55-128",
        "-o",
        str(out),
    ],
    "tiny_synth.tosa",
)


def _tree(folder: Path) -> dict:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _check(tmp_path, args, theirs):
    out = tmp_path / "out"
    out.mkdir()
    (out / theirs).write_bytes(b"a user's file")
    r = CliRunner().invoke(main, args(out))
    assert r.exit_code == 2 and "not-empty" in r.output, r.output
    assert _tree(out) == {theirs: b"a user's file"}
    (out / theirs).unlink()
    for _ in range(2):  # into an empty folder, then over its own output
        r = CliRunner().invoke(main, args(out))
        assert r.exit_code == 0, r.output
    first = _tree(out)
    (out / "notes.txt").write_text("mine")
    r = CliRunner().invoke(main, args(out))
    assert r.exit_code == 2 and "holds notes.txt" in r.output, r.output
    assert _tree(out) == {**first, "notes.txt": b"mine"}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_only_an_earlier_output_of_the_same_command_is_replaced(tmp_path, command):
    if command == "vectors pack":
        pytest.importorskip("onnxruntime", reason="needs onnxruntime: pip install 'waiexport[ort]'")
    _check(tmp_path, *WRITERS[command])


@with_extra("ethosu.vela", "vela")
def test_an_ethos_u_export_replaces_only_its_own_earlier_output(tmp_path):
    _check(tmp_path, *ETHOS)


def test_another_command_s_output_is_not_replaced(tmp_path):
    out = tmp_path / "out"
    assert CliRunner().invoke(main, WRITERS["lower"][0](out)).exit_code == 0
    r = CliRunner().invoke(main, WRITERS["examples make"][0](out))
    assert r.exit_code == 2 and "which no earlier output of 'examples make' holds" in r.output


def test_a_refused_lower_leaves_no_folder(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"layers": []}')
    r = CliRunner().invoke(main, ["lower", "int_synth", str(bad), "-o", str(tmp_path / "out")])
    assert r.exit_code == 2 and "payload_malformed" in r.output, r.output
    assert not (tmp_path / "out").exists()


def test_an_examples_make_that_fails_part_way_leaves_no_folder(tmp_path, monkeypatch):
    import errno

    import waiexport.capabilities.examples as examples

    def full_disk(work, full):
        (work / "int_synth.json").write_text("{}")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(examples, "make", full_disk)
    r = CliRunner().invoke(main, ["examples", "make", str(tmp_path / "out")])
    assert r.exit_code == 2 and "unwritable" in r.output and "No space" in r.output, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == []
