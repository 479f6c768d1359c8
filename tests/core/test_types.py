"""mypy, with its configuration in pyproject.toml, finds nothing in the public library (the
jobs, the graph API, refusals) and the per-operator hooks' protocols.

The installed layout maps the design card's top-level folders into ``waiexport`` (pyproject's
package-dir); a setuptools editable install does that with an import hook that static tools
cannot read, so the check runs on a tree of links laid out as a wheel installs the files."""

import shutil
import subprocess
import sys

import pytest

from _helpers import FOLDERS, ROOT

#: The packages checked whole (the jobs; the reference's hooks) and the modules checked: what
#: ``import waiexport`` offers, the lowerings' protocol and their tables.
PACKAGES = ["waiexport.jobs", "waiexport.reference.ops"]
MODULES = [
    "waiexport",
    "waiexport.graph",
    "waiexport.refusal",
    "waiexport.targets.lowering",
    "waiexport.targets.onnx.lower",
    "waiexport.targets.tosa.lower",
    "waiexport.targets.onnx.qdq.lower",
    "waiexport.targets.tflite.lower",
]


def installed_tree(root):
    """Links laid out as the wheel installs the product: ``root/waiexport/...``."""
    top = root / "waiexport"
    top.mkdir()
    for entry in FOLDERS["waiexport"].iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for package, folder in FOLDERS.items():
        if package != "waiexport":
            (top / package.rpartition(".")[2]).symlink_to(folder)
    return root


def test_mypy_finds_nothing(tmp_path):
    if shutil.which("mypy") is None:
        pytest.skip("needs mypy: pip install 'waiexport[test]'")
    tree = installed_tree(tmp_path)
    modules = [a for p in PACKAGES for a in ("-p", p)] + [a for m in MODULES for a in ("-m", m)]
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            *modules,
        ],
        capture_output=True,
        text=True,
        cwd=tree,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_each_public_function_has_numpydoc_sections():
    import inspect

    import waiexport
    import waiexport.jobs

    names = [*waiexport.__all__, *waiexport.jobs.__all__]
    functions = {
        n: getattr(waiexport.jobs, n, None) or getattr(waiexport, n)
        for n in names
        if n != "__version__"
    }
    missing = [
        n
        for n, f in functions.items()
        if inspect.isfunction(f)
        and f.__module__.startswith("waiexport.jobs")
        and not all(
            f"\n    {s}\n    {'-' * len(s)}\n" in (f.__doc__ or "")
            for s in ("Parameters", "Returns")
        )
    ]
    assert not missing, missing
