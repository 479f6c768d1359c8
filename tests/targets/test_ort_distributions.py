"""onnxruntime's execution-provider builds are separate distributions of one module, which
overwrite each other: waiexport depends on none of them by name, so a venv with only
``onnxruntime-openvino`` runs ``ort:OpenVINOExecutionProvider``, and an onnxruntime older
than the one this package is tested with is named with what it lacks, in one line."""

import json
import subprocess
import sys
import tomllib

import pytest

from waiexport.targets.engines.ort import version_gap

from _helpers import ROOT

EP = "onnxruntime-openvino==1.24.1"


def test_no_onnxruntime_build_is_a_hard_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("onnxruntime") for d in project["dependencies"])
    assert any(d.startswith("onnxruntime") for d in project["optional-dependencies"]["ort"])


def test_an_older_onnxruntime_is_named_with_what_it_lacks():
    assert version_gap("1.32.0") is None and version_gap("1.28.0") is None
    gap = version_gap("1.24.1")
    assert gap.startswith("onnxruntime 1.24.1 is older than 1.28") and "DepthToSpace" in gap


@pytest.fixture(scope="module")
def ep_venv(tmp_path_factory):
    """A venv with waiexport and onnxruntime-openvino, and no other onnxruntime build."""
    venv = tmp_path_factory.mktemp("ep") / "v"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    deps = [
        d for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    ]
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", EP, *deps], capture_output=True, text=True
    )
    if r.returncode:
        pytest.skip(
            f"{EP} could not be installed here: {(r.stderr.strip().splitlines() or ['?'])[-1]}"
        )
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return py


def test_a_venv_with_only_onnxruntime_openvino_runs_its_provider(ep_venv):
    listed = subprocess.run(
        [str(ep_venv), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True
    )
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "onnxruntime-openvino" in names and "onnxruntime" not in names
    r = subprocess.run(
        [
            str(ep_venv),
            "-m",
            "waiexport.cli",
            "validate",
            "--json",
            "--engine",
            "ort:OpenVINOExecutionProvider",
            str(ROOT / "conformance/corpus/vectors/relu.jsonl"),
            str(ROOT / "conformance/corpus/vectors/add.jsonl"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.stdout.startswith("{"), r.stderr[-1500:]
    rep = json.loads(r.stdout)
    assert int(rep["totals"]["pass"]) + int(rep["totals"]["declined"]) > 0
    said = json.dumps(rep)
    assert "onnxruntime 1.24.1 is older than 1.28" in said or rep["claim"] is None
