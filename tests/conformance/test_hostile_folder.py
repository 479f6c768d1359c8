"""A file in the current folder is never what an engine runs: a ``tract.py`` there that wraps
onnxruntime, a ``pickle.py`` or ``numpy.py`` that would run on import, a clone's
``waiexport/`` folder. The command is run from such a folder as a user runs it (the installed
script), and its report is the one it gives from any other folder."""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from waiexport.conformance.generate import CORPUS

from _helpers import with_extra

FORGED = "FORGED by a file in the current folder"

#: What a hostile folder holds: modules that would forge a claim or run code where imported.
HOSTILE = {
    "tract.py": f"import onnxruntime\n__version__ = '0.23.9'\nraise SystemExit({FORGED!r})\n",
    "pickle.py": f"raise SystemExit({FORGED!r})\n",
    "numpy.py": f"raise SystemExit({FORGED!r})\n",
    "onnxruntime.py": f"raise SystemExit({FORGED!r})\n",
    "waiexport/__init__.py": f"raise SystemExit({FORGED!r})\n",
    "waiexport/targets/__init__.py": "",
}


def _script() -> str:
    """The installed ``waiexport`` command, as a user runs it."""
    found = shutil.which("waiexport") or str(Path(sysconfig.get_path("scripts")) / "waiexport")
    assert os.path.exists(found), "the waiexport script is not installed"
    return found


def _validate(folder: Path, engine: str, env: dict) -> tuple[int, dict | None, str]:
    r = subprocess.run(
        [
            _script(),
            "validate",
            "--json",
            "--engine",
            engine,
            str(CORPUS / "vectors" / "abs.jsonl"),
            str(CORPUS / "vectors" / "relu.jsonl"),
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
    )
    # a runtime's crash quoted in a probe's result names addresses that differ run to run
    out = re.sub(r"0x[0-9a-f]+", "0x…", r.stdout)
    return r.returncode, json.loads(out) if out.startswith("{") else None, r.stderr


@pytest.fixture
def hostile(tmp_path):
    folder = tmp_path / "hostile"
    for name, text in HOSTILE.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (tmp_path / "plain").mkdir()
    return folder


def _same_from_both(hostile: Path, engine: str, env: dict) -> dict:
    code, rep, err = _validate(hostile, engine, env)
    assert FORGED not in err and code == 0, err[-2000:]
    plain_code, plain, _ = _validate(hostile.parent / "plain", engine, env)
    assert (code, rep) == (plain_code, plain)
    return rep


@pytest.mark.parametrize(
    "engine",
    [
        "reference",
        pytest.param("ort-cpu", marks=with_extra("onnxruntime", "ort")),
        pytest.param("tract", marks=with_extra("tract", "tract")),
        pytest.param("onnx-reference", marks=with_extra("onnxruntime", "ort")),
    ],
)
def test_a_shadowing_folder_changes_no_report(hostile, engine):
    rep = _same_from_both(hostile, engine, dict(os.environ))
    assert rep["claim"] is not None and int(rep["totals"]["pass"]) > 0


@with_extra("onnxruntime", "ort")
def test_a_plugin_runs_its_own_code_from_a_shadowing_folder(hostile, example_plugin):
    rep = _same_from_both(
        hostile, "example-ort-sequential", {**os.environ, "PYTHONPATH": str(example_plugin)}
    )
    assert "in a worker process of its own" in rep["claim"]["isolation"]


def test_the_worker_is_started_without_the_current_folder(hostile, monkeypatch):
    """The worker's command: isolated, and on the parent's path less the current folder,
    whichever way the parent's path names it."""
    from waiexport.targets.engines.worker import _argv

    monkeypatch.chdir(hostile)
    monkeypatch.setattr(sys, "path", ["", str(hostile), str(hostile) + "/.", *sys.path])
    argv = _argv()
    assert argv[:3] == [sys.executable, "-I", "-c"]
    path = json.loads(argv[-1])
    assert str(hostile) not in {os.path.realpath(p) for p in path} and "" not in path
