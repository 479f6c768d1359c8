"""A hostile runner: every forgery of a pack's results it tries ends in exit 2 naming the file,
never in a claim; ids never reach outside the pack; result paths never leave the results
folder; an untrusted result is read header first."""

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from waiexport.cli import main
from waiexport.conformance.generate import CORPUS

from _helpers import needs, nested
from _runners import identity, on_onnxruntime, packed_and_run, run_pack

needs("onnxruntime", "ort")

FILES = [str(CORPUS / "vectors" / f) for f in ("abs.jsonl", "relu.jsonl", "subpos_split.jsonl")]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The judge's pack, and a faithful runner's results in a copy of it."""
    return packed_and_run(tmp_path_factory.mktemp("forgery"), "ort-cpu", FILES)


def judge(results, pack, files=FILES, *extra, anchor="own pack"):
    """The judge on ``results``, anchored by its own copy of ``pack`` or, the results folder
    then standing for the pack, by ``pack``'s identity."""
    anchor = ["--pack", str(pack)] if anchor == "own pack" else ["--pack-sha256", identity(pack)]
    return CliRunner().invoke(
        main, ["validate", "--results", str(results), *anchor, *extra, *files]
    )


@pytest.fixture
def copy(made, tmp_path):
    pack, results = made
    work = tmp_path / "results"
    shutil.copytree(results, work)
    return pack, work


def manifest(work):
    return json.loads((work / "manifest.json").read_text())


def rewrite(work, m):
    (work / "manifest.json").write_text(json.dumps(m))


def entry(m, vid):
    return next(v for v in m["vectors"] if v["id"] == vid)


def wrong_result(work, vid="abs_basic"):
    """One element of one result one off; returns its path."""
    d = entry(manifest(work), vid)["decodes"][0]
    path = work / d["outputs"][0]["path"]
    a = np.load(path)
    a.reshape(-1)[0] ^= 1
    np.save(path, a)
    return path


def test_the_faithful_runner_passes_both_ways(made):
    pack, results = made
    for r in (judge(results, pack), judge(results, pack, anchor="identity")):
        assert r.exit_code == 0, r.output
        assert "a pass is evidence" in r.output and "on the submitter's machine" in r.output


def _own_vector_file(work):
    wrong_result(work)
    src = (CORPUS / "vectors" / "abs.jsonl").read_text().splitlines()
    v = json.loads(src[0])
    d = v["decodes"][0]["expect"]["outputs"][0]
    d["data"][0] = str(int(d["data"][0]) + 1)
    src[0] = json.dumps(v)
    forged = work / "abs.jsonl"
    forged.write_text("\n".join(src) + "\n")
    m = manifest(work)
    m["vector_files"][0]["sha256"] = hashlib.sha256(forged.read_bytes()).hexdigest()
    rewrite(work, m)


def _refuses_everywhere(work):
    m = manifest(work)
    for v in m["vectors"]:
        v.update(host_refuses_load="model_mismatch", decodes=[])
    rewrite(work, m)
    shutil.rmtree(work / "outputs")


def _drops(what):
    def forge(work):
        wrong_result(work)
        m = manifest(work)
        v = entry(m, "abs_basic")
        if what == "vector":
            m["vectors"].remove(v)
        elif what == "decode":
            v["decodes"].pop()
        elif what == "decodes":
            v["decodes"] = []
        else:
            v["decodes"][0]["outputs"] = []
        rewrite(work, m)

    return forge


def _float64(work):
    m = manifest(work)
    for v in m["vectors"]:
        for d in v["decodes"]:
            for o in d.get("outputs", []):
                a = np.load(work / o["path"]).astype(np.float64) + 0.3
                np.save(work / o["path"], a)
                o["dtype"] = "float64"
    rewrite(work, m)


def _edited(kind):
    def forge(work):
        d = entry(manifest(work), "relu_basic")["decodes"][0]
        path = work / (d["model"]["path"] if kind == "model" else d["inputs"][0]["path"])
        data = bytearray(path.read_bytes())
        data[-1] ^= 1
        path.write_bytes(bytes(data))

    return forge


def _another_pack(work):
    doc = json.loads((work / "results.json").read_text())
    doc["pack"] = "0" * 64
    (work / "results.json").write_text(json.dumps(doc))


def _cut_manifest(work):
    m = manifest(work)
    m["vectors"] = m["vectors"][:1]
    m["not_packed"] = []
    rewrite(work, m)


FORGERIES = {
    "its own vector file": (_own_vector_file, "manifest.json"),
    "host_refuses_load everywhere": (_refuses_everywhere, "manifest.json"),
    "a dropped vector": (_drops("vector"), "manifest.json"),
    "a dropped decode": (_drops("decode"), "manifest.json"),
    "emptied decodes": (_drops("decodes"), "manifest.json"),
    "emptied outputs": (_drops("outputs"), "manifest.json"),
    "float64 results": (_float64, "manifest.json"),
    "an edited model": (_edited("model"), ".onnx"),
    "an edited input": (_edited("input"), ".npy"),
    "another pack's results": (_another_pack, "results.json"),
    "a manifest cut to one vector": (_cut_manifest, "manifest.json"),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
@pytest.mark.parametrize("anchor", ["own pack", "identity"])
def test_every_forgery_is_exit_2_naming_the_file(copy, forgery, anchor):
    pack, work = copy
    forge, named = FORGERIES[forgery]
    forge(work)
    r = judge(work, pack, anchor=anchor)
    assert r.exit_code == 2, r.output
    [line] = r.output.strip().splitlines()
    assert named in line and "a pass is evidence" not in r.output and "Traceback" not in line


def test_float64_results_of_integral_values_fail_by_id(copy):
    pack, work = copy
    m = manifest(work)
    o = entry(m, "abs_basic")["decodes"][0]["outputs"][0]
    np.save(work / o["path"], np.load(work / o["path"]).astype(np.float64))
    r = judge(work, pack, FILES, "--json")
    d = json.loads(r.stdout)
    assert r.exit_code == 1 and d["claim"] is None
    assert [v["id"] for v in d["vectors"] if v["status"] == "fail"] == ["abs_basic"]
    assert "float64" in r.output


def test_the_judge_needs_an_anchor_outside_the_results(made):
    _, results = made
    r = CliRunner().invoke(main, ["validate", "--results", str(results), *FILES])
    assert r.exit_code == 2 and "cannot vouch for itself" in r.output


def test_duplicate_ids_across_files_each_need_their_own_run(tmp_path):
    twin = tmp_path / "relu_twin.jsonl"  # the same vectors, ids included, in other bytes
    twin.write_text(
        "".join(
            line + " \n" for line in (CORPUS / "vectors" / "relu.jsonl").read_text().splitlines()
        )
    )
    files = [str(CORPUS / "vectors" / "relu.jsonl"), str(twin)]
    pack = tmp_path / "pack"
    assert CliRunner().invoke(main, ["vectors", "pack", str(pack), *files]).exit_code == 0
    results = tmp_path / "results"
    shutil.copytree(pack, results)
    run_pack(results, on_onnxruntime)
    m = manifest(results)
    keys = [v["key"] for v in m["vectors"]]
    assert len(set(keys)) == len(keys)
    twin_keys = [v["key"] for v in m["vectors"] if v["file"] == "relu_twin"]
    for k in twin_keys:  # the twin file's vectors never ran
        shutil.rmtree(results / "outputs" / k)
    r = judge(results, pack, files, "--json")
    d = json.loads(r.stdout)
    assert r.exit_code == 1 and d["claim"] is None
    assert {v["file"] for v in d["vectors"] if v["status"] == "fail"} == {"relu_twin"}


@pytest.mark.parametrize("vid", ["../../ESCAPED", "nul\u0000id", "x" * 300, "/abs/path"])
def test_an_id_never_reaches_outside_the_pack(tmp_path, vid):
    lines = (CORPUS / "vectors" / "relu.jsonl").read_text().splitlines()
    v = json.loads(lines[0])
    v["id"] = vid
    f = tmp_path / "in" / "v.jsonl"
    f.parent.mkdir()
    f.write_text(json.dumps(v) + "\n")
    pack = tmp_path / "a" / "b" / "pack"
    pack.parent.mkdir(parents=True)
    r = CliRunner().invoke(main, ["vectors", "pack", str(pack), str(f)])
    assert r.exit_code == 0, r.output
    outside = {p for p in tmp_path.rglob("*") if pack not in p.parents and p != pack}
    assert outside == {tmp_path / "in", f, tmp_path / "a", tmp_path / "a" / "b"}
    results = tmp_path / "results"
    shutil.copytree(pack, results)
    run_pack(results, on_onnxruntime)
    assert judge(results, pack, [str(f)]).exit_code == 0


def _result_path(work, vid="relu_basic"):
    return work / entry(manifest(work), vid)["decodes"][0]["outputs"][0]["path"]


def test_a_result_symlinked_elsewhere_is_not_read(copy, tmp_path):
    pack, work = copy
    path = _result_path(work)
    elsewhere = tmp_path / "elsewhere.npy"
    shutil.move(path, elsewhere)
    os.symlink(elsewhere, path)
    r = judge(work, pack)
    assert r.exit_code == 2 and "symbolic link" in r.output and "a pass is" not in r.output


@pytest.mark.parametrize("where", ["/usr", "/"])
def test_outputs_linked_to_a_system_folder_is_one_line(copy, where):
    pack, work = copy
    shutil.rmtree(work / "outputs")
    os.symlink(where, work / "outputs")
    r = judge(work, pack)
    assert r.exit_code == 2 and "symbolic link" in r.output and len(r.output.splitlines()) == 1


@pytest.mark.parametrize(
    "header, words",
    [
        ("{'descr': '<i4', 'fortran_order': False, 'shape': (1099511627776,), }", "1099511627776"),
        # found by the fuzz harness's results family: numpy's header parser raised TokenError
        (
            "{'descr': '<i4', 'fortran_order': False, 'shape': \xff\xff2, 3, 5), }",
            "not an .npy result",
        ),
    ],
    ids=["2^40 elements", "cut inside its dictionary"],
)
def test_a_hostile_result_header_is_read_no_further(copy, header, words):
    pack, work = copy
    path = _result_path(work)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    path.write_bytes(
        b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin-1")
    )
    r = judge(work, pack)
    assert r.exit_code == 1 and words in r.output and "Traceback" not in r.output


@pytest.mark.parametrize(
    "head, words",
    [
        (b"\x93NUMPY\x02\x00" + (0xFFFFFFF0).to_bytes(4, "little") + b"{", "4,294,967,280 bytes"),
        (
            b"\x93NUMPY\x01\x00" + (9002).to_bytes(2, "little") + b"(" + b"-" * 9000 + b"\n",
            "not an .npy result",
        ),
    ],
    ids=["4 GiB header", "( and 9,000 - signs"],
)
def test_a_result_header_costs_no_more_than_its_limit(copy, head, words):
    """numpy read a 2.0 header's whole length before its own check (8 GiB resident for
    one that says 4 GiB), and Python's parser ran out of memory on ``(`` and 9,000 ``-``:
    the length is checked first, and the header parsed by a parser of its own."""
    import tracemalloc

    pack, work = copy
    _result_path(work).write_bytes(head)
    tracemalloc.start()
    try:
        r = judge(work, pack)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.exit_code == 1 and words in r.output and "Traceback" not in r.output, r.output
    assert peak < 256 << 20, peak


def test_outputs_nested_past_the_recursion_limit_is_one_extra(copy):
    """``os.walk`` raised RecursionError on a folder 1,200 deep; only the folders the
    manifest names are entered now."""
    pack, work = copy
    with nested(work / "outputs"):
        r = judge(work, pack)
    assert r.exit_code == 1 and "outputs/d: extra" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize(
    "content", [b"[" * 60000, b"{" + b" " * (1 << 20) + b"}", b'{"pack": 1}', b"\xff\xfe"]
)
def test_a_hostile_results_json_is_one_line(copy, content):
    pack, work = copy
    (work / "results.json").write_bytes(content)
    r = judge(work, pack)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert "results.json" in r.output and "Traceback" not in r.output


def test_a_long_ran_on_is_cut_in_the_claim(copy):
    pack, work = copy
    doc = json.loads((work / "results.json").read_text())
    doc["ran_on"] = "board " * 5000
    (work / "results.json").write_text(json.dumps(doc))
    r = judge(work, pack)
    assert r.exit_code == 0 and "(29999 characters)" in r.output and len(r.output) < 20000


def test_a_runner_s_error_reaches_the_report(copy):
    pack, work = copy
    key = entry(manifest(work), "relu_basic")["key"]
    shutil.rmtree(work / "outputs" / key)
    (work / "errors" / key).mkdir(parents=True)
    (work / "errors" / key / "0.txt").write_text("NPU driver: timeout after 30 s\n")
    r = judge(work, pack)
    assert r.exit_code == 1 and "the runner says: NPU driver: timeout after 30 s" in r.output


@pytest.mark.parametrize("linked", ["errors", "key", "file"])
def test_a_runner_s_error_behind_a_link_is_not_quoted(copy, tmp_path, linked):
    """A link inside ``errors/`` was followed and the file outside quoted in the report."""
    pack, work = copy
    key = entry(manifest(work), "relu_basic")["key"]
    shutil.rmtree(work / "outputs" / key)
    secret = tmp_path / "outside" / key
    secret.mkdir(parents=True)
    (secret / "0.txt").write_text("SECRET from outside the results\n")
    if linked == "errors":
        (work / "errors").symlink_to(tmp_path / "outside")
    else:
        (work / "errors").mkdir()
        if linked == "key":
            (work / "errors" / key).symlink_to(secret)
        else:
            (work / "errors" / key).mkdir()
            (work / "errors" / key / "0.txt").symlink_to(secret / "0.txt")
    r = judge(work, pack)
    assert r.exit_code == 1 and "SECRET" not in r.output and "symbolic link" in r.output, r.output


def test_vector_files_given_as_links_are_read_as_validate_reads_them(made, tmp_path):
    """The judge refused vector files given as links (bad-results) where vectors pack and
    validate --engine take them: one rule for both."""
    pack, results = made
    links = []
    for f in FILES:
        links.append(tmp_path / Path(f).name)
        links[-1].symlink_to(f)
    assert judge(results, pack, [str(p) for p in links]).exit_code == 0
    r = CliRunner().invoke(main, ["validate", "--engine", "ort-cpu", *map(str, links)])
    assert r.exit_code == 0, r.output
