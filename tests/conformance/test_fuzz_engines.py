"""``waiexport fuzz``: each test double (``tests/_doubles.py``, the reference with one named
mistake) is found within a number of graphs fixed here, reduced to the one operator that
makes the mistake, and kept as a bundle whose ``repro.sh`` reproduces it in a fresh process
(the doubles registered there as plug-ins); shards merged equal the single run; the command
writes its bundles and summary."""

import json
import os
import subprocess

import pytest
from click.testing import CliRunner

import waiexport
from waiexport.cli import main
from waiexport.whg1 import read

from _doubles import DOUBLES
from _helpers import ROOT, needs

#: Each double, the operator it is reduced to and the class of its bug, within GRAPHS graphs.
FOUND = {
    "float32-conv": ("conv", "wrong value"),
    "ties-even": ("rescale", "wrong value"),
    "narrow-int32": ("rescale", "wrong value"),
    "float32-clamp": ("clamp", "wrong value"),
    "crash-pixel-shuffle": ("pixel_shuffle", "crash"),
}
GRAPHS = 200


@pytest.fixture(scope="module")
def plugins(tmp_path_factory):
    """A folder that registers every double under the ``waiexport.engines`` entry points,
    as an installed plug-in would, for a fresh process with it on its path."""
    site = tmp_path_factory.mktemp("doubles")
    info = site / "waiexport_doubles-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: waiexport-doubles\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[waiexport.engines]\n"
        + "".join(f"{n} = _doubles:{c.__name__}\n" for n, c in DOUBLES.items())
    )
    return site


def _write(files: dict, folder) -> None:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


@pytest.mark.parametrize("double", list(FOUND))
def test_each_double_is_found_reduced_and_reproduced_in_a_fresh_process(double, plugins, tmp_path):
    done = waiexport.fuzz(DOUBLES[double](), graphs=GRAPHS, seed=0)
    op, cls = FOUND[double]
    mine = [b for b in done.campaign.bugs.values() if b.signature[1:3] == (op, cls)]
    assert mine, done.text()
    bug = min(mine, key=lambda b: b.first)
    print(f"{double}: found at graph {bug.first} of {GRAPHS}, in {bug.count} graphs")
    assert [o.name for o in read(bytes.fromhex(bug.vector["graph"])).ops] == [op]
    _write(done.files(), tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), str(ROOT / "tests")])}
    ran = subprocess.run(
        ["sh", str(tmp_path / bug.name / "repro.sh")], capture_output=True, text=True, env=env
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert ("FAIL" if cls == "wrong value" else "CRASHED") in ran.stdout.upper(), ran.stdout


def test_two_shards_merged_equal_the_single_run(tmp_path):
    double = DOUBLES["narrow-int32"]
    whole = waiexport.fuzz(double(), graphs=90, seed=3)
    for k in (1, 2):
        part = waiexport.fuzz(double(), graphs=90, seed=3, shard=(k, 2))
        _write(part.files(), tmp_path / f"s{k}")
    r = CliRunner().invoke(
        main,
        [
            "fuzz",
            "--merge",
            str(tmp_path / "s1"),
            "--merge",
            str(tmp_path / "s2"),
            "-o",
            str(tmp_path / "all"),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == json.loads(whole.to_json())
    for rel, data in whole.files().items():
        assert (tmp_path / "all" / rel).read_bytes() == data, rel


def test_the_command_writes_its_summary_and_runs_on_processes(tmp_path):
    r = CliRunner().invoke(
        main,
        [
            "fuzz",
            "--engine",
            "reference",
            "--graphs",
            "12",
            "--seed",
            "2",
            "-o",
            str(tmp_path / "b"),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    one = json.loads(r.stdout)
    assert int(one["graphs"]) >= 6 and one["counts"]["agree"] == one["graphs"] and not one["bugs"]
    assert json.loads((tmp_path / "b" / "summary.json").read_text()) == one
    two = waiexport.fuzz("reference", graphs=12, seed=2, jobs=2).to_json()
    assert json.loads(two) == one


def test_a_fuzz_without_a_length_or_with_a_bad_shard_ends_in_one_line(tmp_path):
    r = CliRunner().invoke(main, ["fuzz", "--engine", "reference"])
    assert r.exit_code == 2 and "give one of them" in r.stderr
    r = CliRunner().invoke(main, ["fuzz", "--graphs", "3", "--shard", "3/2"])
    assert r.exit_code == 2 and "K/N" in r.output
    (tmp_path / "x").mkdir()
    r = CliRunner().invoke(
        main, ["fuzz", "--merge", str(tmp_path / "x"), "-o", str(tmp_path / "y")]
    )
    assert r.exit_code == 2 and "bad-fuzz-output" in r.stderr and "summary.json" in r.stderr


def test_the_ray_executor_runs_a_campaign_on_a_local_ray_as_the_processes_do():
    """A local Ray started here, its temporary folder and its token under a folder of this
    test's own (short: Ray's socket paths must fit 107 bytes), removed after; Ray's Pool in
    place of the local one, the same campaign as one process."""
    import secrets
    import shutil
    import tempfile
    from pathlib import Path

    from importlib.util import find_spec

    if find_spec("ray") is None:
        needs("ray", "ray")  # skips, naming the extra
    tmp_path = Path(tempfile.mkdtemp(prefix="wf"))
    token = tmp_path / "token"
    token.write_text(secrets.token_hex(32))
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH")}
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
    import ray  # after its token's settings, which it reads as it is imported

    try:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            _temp_dir=str(tmp_path / "ray"),
            log_to_driver=False,
            configure_logging=False,
        )
        on_ray = waiexport.fuzz("reference", graphs=12, seed=2, jobs=2, executor="ray")
    finally:
        ray.shutdown()
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    made = (tmp_path / "ray").is_dir()
    shutil.rmtree(tmp_path, ignore_errors=True)
    here = waiexport.fuzz("reference", graphs=12, seed=2)
    assert json.loads(on_ray.to_json()) == json.loads(here.to_json()) and made


def test_a_campaign_on_another_target_s_models_says_so_in_its_bundles():
    done = waiexport.fuzz(DOUBLES["narrow-int32"](), graphs=12, seed=0, target="ort-cpu")
    files = done.files()
    assert json.loads(files["summary.json"])["target"] == "ort-cpu"
    repro = [d.decode() for rel, d in files.items() if rel.endswith("repro.sh")]
    assert repro and all("--engine narrow-int32 --target ort-cpu --locate" in r for r in repro)


def test_each_bug_has_a_bundle_of_its_own():
    from waiexport.conformance.campaign import Bug

    sigs = [("e", "conv", "wrong value", d) for d in ("", "float32 accumulation", "other")]
    names = {Bug(sig, 1, 0, {}, {}).name for sig in sigs}
    assert len(names) == 3 and all(n.startswith("e-conv-wrong_value-") for n in names)
