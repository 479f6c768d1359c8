"""A hostile disk and a hostile runner, each command in a process of its own: untrusted files
are read within memory a small multiple of a correct file's (peak resident memory against the
same command on a correct input, under an address-space limit that a read of the whole would
pass); a writer interrupted at any point, or on a full file system, leaves its target absent
or whole and an earlier output as it was, and the next run is right."""

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from waiexport.conformance.generate import CORPUS

from _helpers import ROOT, jpegai_args, needs

needs("onnxruntime", "ort")

#: The address space a command may map: beyond what numpy, numba and onnxruntime reserve,
#: well below what reading any of the hostile files whole would take.
LIMIT = 6 << 30
#: What a refused hostile input may hold beyond the same command on a correct input.
MARGIN = 64 << 20


def _run(args: list, cwd=None, timeout: float = 300) -> tuple[int, str, int]:
    """``waiexport ARGS`` in a child under :data:`LIMIT`: its exit code, its output, and its
    peak resident memory in bytes (from the child's own resource usage)."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(
            [sys.executable, "-m", "waiexport.cli", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT)),
        )
        deadline = time.monotonic() + timeout  # a hang guard, not a measurement
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                p.kill()
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return p.returncode, out.read().decode(errors="replace"), usage.ru_maxrss * 1024


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The hostile files of the campaign, and the folders they go in."""
    root = tmp_path_factory.mktemp("hostile")
    os.mkfifo(root / "fifo")
    (root / "flags").write_bytes(b"0" * (100 << 20))
    line = json.loads((CORPUS / "vectors" / "relu.jsonl").read_text().splitlines()[0])
    line["pad"] = "x" * (200 << 20)
    (root / "long.jsonl").write_text(json.dumps(line) + "\n")
    return root


_BASE: dict = {}


def _base(kind: str, args: list) -> int:
    """The peak memory of a correct run of ``kind`` (once per module)."""
    if kind not in _BASE:
        code, out, _BASE[kind] = _run(args)
        assert code == 0, out
    return _BASE[kind]


@pytest.mark.parametrize(
    "case", ["dev-zero payload", "fifo flags", "100 MB flags", "200 MB line", "dev-zero vectors"]
)
def test_a_hostile_file_is_one_line_within_a_correct_file_s_memory(hostile, tmp_path, case):
    kind = "validate" if case in ("200 MB line", "dev-zero vectors") else "decode"
    base = _base(
        kind,
        ["validate", str(CORPUS / "vectors" / "relu.jsonl")]
        if kind == "validate"
        else jpegai_args(tmp_path / "a"),
    )
    bad = {
        "dev-zero payload": jpegai_args(tmp_path / "b", soz="/dev/zero"),
        "fifo flags": jpegai_args(tmp_path / "b", **{"grfs-y": hostile / "fifo"}),
        "100 MB flags": jpegai_args(tmp_path / "b", **{"grfs-uv": hostile / "flags"}),
        "200 MB line": ["validate", str(hostile / "long.jsonl")],
        "dev-zero vectors": ["validate", "/dev/zero"],
    }[case]
    code, out, peak = _run(bad)
    lines = [x for x in out.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in out, out
    assert peak <= base + MARGIN, f"{peak >> 20} MiB against {base >> 20} MiB"


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """A pack of the relu vectors and a faithful runner's results in a copy of it."""
    from click.testing import CliRunner

    from waiexport.cli import main

    from _runners import on_onnxruntime, run_pack

    root = tmp_path_factory.mktemp("judged")
    r = CliRunner().invoke(
        main,
        [
            "vectors",
            "pack",
            "--target",
            "ort-cpu",
            str(root / "pack"),
            str(CORPUS / "vectors" / "relu.jsonl"),
        ],
    )
    assert r.exit_code == 0, r.output
    shutil.copytree(root / "pack", root / "results")
    run_pack(root / "results", on_onnxruntime)
    return root


def _header_of(count: int) -> bytes:
    header = f"{{'descr': '<i4', 'fortran_order': False, 'shape': ({count},), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()


@pytest.mark.parametrize(
    "case", ["2^40 elements", "100 MB ran_on", "nested 200,000 deep", "NaN shape"]
)
def test_hostile_results_are_judged_within_a_correct_result_s_memory(judged, tmp_path, case):
    work = tmp_path / "results"
    shutil.copytree(judged / "results", work)
    args = [
        "validate",
        "--results",
        str(work),
        "--pack",
        str(judged / "pack"),
        str(CORPUS / "vectors" / "relu.jsonl"),
    ]
    base = _base("judge", args)
    manifest = json.loads((work / "manifest.json").read_text())
    first = work / manifest["vectors"][0]["decodes"][0]["outputs"][0]["path"]
    results = json.loads((work / "results.json").read_text())
    if case == "2^40 elements":
        first.write_bytes(_header_of(1 << 40))
    elif case == "100 MB ran_on":
        (work / "results.json").write_text(json.dumps(results | {"ran_on": "x" * (100 << 20)}))
    elif case == "nested 200,000 deep":
        (work / "results.json").write_text("[" * 200_000 + "]" * 200_000)
    else:
        manifest["vectors"][0]["decodes"][0]["outputs"][0]["shape"] = ["NaN"]
        (work / "manifest.json").write_text(json.dumps(manifest))
    code, out, peak = _run(args + ["--json"] * (case == "NaN shape"))
    assert code in (1, 2) and "Traceback" not in out, out
    assert peak <= base + MARGIN, f"{peak >> 20} MiB against {base >> 20} MiB"


def _tree(folder: Path) -> dict:
    """Every file under ``folder`` by its path there, and its bytes; what a writer killed
    before it could clean up leaves under a temporary name (``*.part``, ``*.old``) aside."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and not any(part.endswith((".part", ".old")) for part in p.relative_to(folder).parts)
    }


WRITERS = {
    "export": lambda out: [
        "export",
        str(ROOT / "examples" / "tiny_synth.whg1"),
        "-o",
        str(out / "m.onnx"),
    ],
    "pack": lambda out: [
        "vectors",
        "pack",
        str(out / "pack"),
        str(CORPUS / "vectors" / "relu.jsonl"),
        str(CORPUS / "vectors" / "conv.jsonl"),
    ],
    "decode": lambda out: jpegai_args(out / "decoded"),
    "examples": lambda out: ["examples", "make", str(out / "sets")],
}


def _interrupted(args: list, sig, delay: float) -> None:
    p = subprocess.Popen(
        [sys.executable, "-m", "waiexport.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(delay)
    p.send_signal(sig)
    p.wait()


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_an_interrupted_writer_leaves_its_output_absent_or_whole(tmp_path, writer):
    """Interrupted (SIGINT, which the command handles, and SIGKILL, which it cannot) at
    points along its run: the new output absent or whole, an earlier one as it was."""
    args = WRITERS[writer]
    whole = tmp_path / "whole"
    whole.mkdir()
    assert _run(args(whole))[0] == 0
    want = _tree(whole)
    points = [(signal.SIGINT, 0.5), (signal.SIGKILL, 1.2), (signal.SIGKILL, 2.5)]
    for k, (sig, delay) in enumerate(points):
        out = tmp_path / f"try{k}"
        out.mkdir()
        _interrupted(args(out), sig, delay)
        assert _tree(out) in ({}, want), f"{sig.name} after {delay} s: a partial output"
        if sig == signal.SIGKILL:
            _interrupted(args(whole), sig, delay)
            assert _tree(whole) == want, f"{sig.name} after {delay} s: the earlier output"
    assert _run(args(out))[0] == 0 and _tree(out) == want  # the next run is right


@pytest.fixture
def small_disk(tmp_path):
    """An 8 MiB tmpfs (root only; the test skips elsewhere)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], capture_output=True
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()[:80]}")
    yield disk
    subprocess.run(["umount", str(disk)], capture_output=True)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_full_disk_is_one_line_and_the_earlier_output_stays(small_disk, writer):
    args = WRITERS[writer]
    code, out, _ = _run(args(small_disk))
    if code != 0:
        pytest.skip(f"{writer}'s output does not fit 8 MiB")
    want = _tree(small_disk)
    filler = small_disk / "filler"
    free = shutil.disk_usage(small_disk).free
    filler.write_bytes(b"\0" * max(0, free - 4096))
    code, out, _ = _run(args(small_disk))
    lines = [x for x in out.splitlines() if x.strip() and not x.startswith("rewrite:")]
    assert code == 2 and len(lines) == 1 and "unwritable" in lines[0], out
    filler.unlink()
    assert _tree(small_disk) == want
    assert not [p for p in small_disk.rglob("*") if p.name.endswith(".part")]
    assert _run(args(small_disk))[0] == 0 and _tree(small_disk) == want
