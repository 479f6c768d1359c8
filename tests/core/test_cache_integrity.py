"""A cache file is used only when its bytes are what was written: numba's compiled kernels,
IREE's modules and TVM's libraries, cut to half, emptied or with one byte changed, are
removed and built again (a line on stderr says so), and the next command gives the answer a
fresh cache gives. Two processes filling one fresh cache at once both answer right."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from waiexport.caches import keep, kept, seal, unsealed
from waiexport.conformance.generate import CORPUS

from _helpers import with_extra

NOTE = "is not what was written"

KERNEL = """
import numpy as np
from waiexport.reference.kernels import conv_acc
rng = np.random.default_rng(0)
x = rng.integers(-100, 100, (4, 12, 12)).astype(np.int64)
w = rng.integers(-9, 9, (6, 4, 3, 3)).astype(np.int64)
out = np.zeros((6, 10, 10), np.int64)
conv_acc(x, w, 1, 1, 1, out)
print(out.sum(), out[2, 3, 4], out.min(), out.max())
"""


def _literal() -> str:
    """The kernel's sums, by a loop over every tap (an independent oracle)."""
    rng = np.random.default_rng(0)
    x = rng.integers(-100, 100, (4, 12, 12)).astype(np.int64)
    w = rng.integers(-9, 9, (6, 4, 3, 3)).astype(np.int64)
    out = np.zeros((6, 10, 10), np.int64)
    for o in range(6):
        for i in range(3):
            for j in range(3):
                out[o] += np.tensordot(w[o, :, i, j], x[:, i : i + 10, j : j + 10], axes=1)
    return f"{out.sum()} {out[2, 3, 4]} {out.min()} {out.max()}"


def _env(cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return {**env, "XDG_CACHE_HOME": str(cache)}


def _kernel(cache: Path, wait: bool = True):
    p = subprocess.Popen(
        [sys.executable, "-c", KERNEL],
        env=_env(cache),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return p.communicate() + (p.returncode,) if wait else p


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) * 2 // 3] ^= 0x10
    path.write_bytes(bytes(data))


CORRUPTIONS = [_truncate, _empty, _flip]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """A cache folder the kernel was compiled into once, for each test to copy."""
    cache = tmp_path_factory.mktemp("compiled")
    out, err, code = _kernel(cache)
    assert code == 0 and out.strip() == _literal(), err
    return cache


@pytest.mark.parametrize("corrupt, kind", [(c, ".nbc") for c in CORRUPTIONS] + [(_flip, ".nbi")])
def test_a_corrupted_kernel_is_compiled_again(tmp_path, compiled, corrupt, kind):
    import shutil

    shutil.copytree(compiled, tmp_path, dirs_exist_ok=True)
    (cached,) = (tmp_path / "waiexport" / "numba").rglob(f"*{kind}")
    corrupt(cached)
    out, err, code = _kernel(tmp_path)
    assert code == 0 and out.strip() == _literal() and NOTE in err, err
    out, err, code = _kernel(tmp_path)  # built again, and kept
    assert code == 0 and out.strip() == _literal() and NOTE not in err, err


def test_two_processes_fill_one_fresh_kernel_cache(tmp_path):
    runs = [_kernel(tmp_path, wait=False) for _ in range(2)]
    for p in runs:
        out, err = p.communicate()
        assert p.returncode == 0 and out.strip() == _literal(), err
    out, err, code = _kernel(tmp_path)
    assert code == 0 and out.strip() == _literal() and NOTE not in err, err


def test_a_sealed_file_opens_only_as_written(tmp_path, capsys):
    path = tmp_path / "f"
    path.write_bytes(seal(b"body"))
    assert unsealed(path) == b"body" and unsealed(tmp_path / "absent") is None
    for corrupt in CORRUPTIONS:
        path.write_bytes(seal(b"body" * 100))
        corrupt(path)
        assert unsealed(path) is None and not path.exists()
    path.write_bytes(b"body")  # written by an earlier version
    assert unsealed(path) is None and NOTE in capsys.readouterr().err


def test_a_kept_file_is_found_only_as_written(tmp_path):
    made = keep(tmp_path, "k" * 64, ".so", lambda p: p.write_bytes(b"library"))
    assert kept(tmp_path, "k" * 64, ".so") == made and made.read_bytes() == b"library"
    assert [p.name for p in tmp_path.iterdir()] == [made.name]  # no temporary left
    _flip(made)
    assert kept(tmp_path, "k" * 64, ".so") is None and not made.exists()


def _validate(cache: Path, engine: str, wait: bool = True):
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "waiexport.cli",
            "validate",
            "--json",
            "--engine",
            engine,
            str(CORPUS / "vectors" / "relu.jsonl"),
        ],
        env=_env(cache),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if not wait:
        return p
    out, err = p.communicate()
    return p.returncode, json.loads(out)["totals"] if out.startswith("{") else None, err


def _compiled_cache(engine: str, tmp_path: Path, suffix: str):
    code, totals, err = _validate(tmp_path, engine)
    assert code == 0, err[-2000:]
    return totals, sorted((tmp_path / "waiexport").rglob(f"*{suffix}"))


@pytest.mark.parametrize(
    "engine, suffix",
    [
        pytest.param("iree-cpu", ".vmfb", marks=with_extra("iree.runtime", "iree")),
        pytest.param("tvm-llvm", ".so", marks=with_extra("tvm", "tvm")),
    ],
)
def test_a_corrupted_compiled_model_is_compiled_again(tmp_path, engine, suffix):
    totals, files = _compiled_cache(engine, tmp_path, suffix)
    assert files and not [f for f in files if f.name.startswith(".")]
    for corrupt in CORRUPTIONS:
        corrupt(sorted((tmp_path / "waiexport").rglob(f"*{suffix}"))[0])
        code, again, err = _validate(tmp_path, engine)
        assert code == 0 and again == totals and NOTE in err, err[-2000:]
    assert len(sorted((tmp_path / "waiexport").rglob(f"*{suffix}"))) == len(files)


@pytest.mark.parametrize(
    "engine, suffix",
    [
        pytest.param("iree-cpu", ".vmfb", marks=with_extra("iree.runtime", "iree")),
        pytest.param("tvm-llvm", ".so", marks=with_extra("tvm", "tvm")),
    ],
)
def test_two_processes_fill_one_fresh_model_cache(tmp_path, engine, suffix):
    runs = [_validate(tmp_path, engine, wait=False) for _ in range(2)]
    reports = []
    for p in runs:
        out, err = p.communicate()
        assert p.returncode == 0, err[-2000:]
        reports.append(json.loads(out)["totals"])
    assert reports[0] == reports[1] and int(reports[0]["pass"]) > 0
    assert not [f for f in (tmp_path / "waiexport").rglob("*") if ".part" in f.name]


def _leaves(tmp_path: Path, engine: str, *extra: str, cache: str | None = None):
    """What of ours ``validate --engine ENGINE`` leaves in a temporary folder of its own
    (onnxruntime's import writes a ``.ses`` file there, its own, under one name), and what
    it says on stderr."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {**_env(Path(cache or tmp_path / "cache")), "TMPDIR": str(tmp)}
    env.pop("WAIEXPORT_MODEL_CACHE")  # the models' cache too
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "waiexport.cli",
            "validate",
            "--engine",
            engine,
            *extra,
            str(CORPUS / "vectors" / "abs.jsonl"),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("waiexport")), r.stderr


@with_extra("onnxruntime", "ort")
def test_a_profiled_session_leaves_no_profile_behind(tmp_path):
    """Test runs left about 40 waiexport-profile-* folders (onnxruntime's profiles)."""
    left, _ = _leaves(tmp_path, "ort:CPUExecutionProvider", "--allow-fallback")
    assert left == [], left


@pytest.mark.parametrize(
    "engine",
    [
        pytest.param("ort-cpu", marks=with_extra("onnxruntime", "ort")),
        pytest.param("iree-cpu", marks=with_extra("iree.runtime", "iree")),
    ],
)
def test_an_unwritable_cache_says_so_once_and_leaves_nothing(tmp_path, engine):
    """An unwritable cache left waiexport-iree-* and waiexport-models-* folders at every run,
    and the in-process engines said so twice."""
    (tmp_path / "file").write_text("a file where the cache folder would be")
    for _ in range(2):
        left, said = _leaves(tmp_path, engine, cache=str(tmp_path / "file"))
        assert left == [] and said.count("cannot use the cache folder") == 1, (left, said)
