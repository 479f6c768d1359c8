"""ruff, with its configuration in pyproject.toml, finds nothing in the product, the tests and
the benchmarks, and its formatter would change nothing."""

import shutil
import subprocess

import pytest

from _helpers import ROOT


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("needs ruff: pip install 'waiexport[test]'")
    r = subprocess.run(
        [ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_changes_nothing():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("needs ruff: pip install 'waiexport[test]'")
    r = subprocess.run(
        [ruff, "format", "--check", "--no-cache", str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
