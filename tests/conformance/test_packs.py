"""Offline vector packs: a pack for ort-cpu and one for tosa, run by a small runner on
onnxruntime / the TOSA reference model, pass ``validate --results``; a runner that makes one
mistake fails that vector by id with its difference; a missing file is named."""

import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from waiexport.cli import main
from waiexport.conformance.generate import CORPUS

from _helpers import ROOT, needs, with_extra
from _runners import (
    identity,
    on_onnxruntime,
    on_qnn_htp,
    on_tosa_reference,
    packed_and_run,
    run_pack,
)

FILES = [
    str(CORPUS / "vectors" / f) for f in ("conv.jsonl", "relu.jsonl", "pixel_shuffle.jsonl")
] + [str(CORPUS / "graphs" / "graphs.jsonl")]


@pytest.fixture(
    scope="module",
    params=[
        ("ort-cpu", on_onnxruntime),
        pytest.param(("tosa", on_tosa_reference), marks=with_extra("tosa_reference_model", "tosa")),
        pytest.param(("qnn-htp", on_qnn_htp), marks=with_extra("onnxruntime_qnn", "qnn")),
    ],
)
def pack(request, tmp_path_factory):
    target, execute = request.param
    out = tmp_path_factory.mktemp(target) / "pack"
    r = CliRunner().invoke(main, ["vectors", "pack", "--target", target, str(out), *FILES])
    assert r.exit_code == 0, r.output
    assert f"pack identity {identity(out)}" in r.output
    return out, execute


def _validate(results, pack=None, *extra):
    """The judge on ``results``, with its own copy of the pack (or the pack's identity)."""
    anchor = ["--pack", str(pack)] if pack else ["--pack-sha256", identity(results)]
    return CliRunner().invoke(
        main, ["validate", "--results", str(results), *anchor, "--json", *extra, *FILES]
    )


@with_extra("onnxruntime", "ort")
def test_a_pack_holds_no_expected_outputs(pack):
    out, _ = pack
    m = json.loads((out / "manifest.json").read_text())
    assert m["vectors"] and not (out / "outputs").exists()
    assert "expect" not in (out / "manifest.json").read_text()


@with_extra("onnxruntime", "ort")
def test_a_faithful_runner_passes(pack, tmp_path):
    out, execute = pack
    work = tmp_path / "p"
    shutil.copytree(out, work)
    run_pack(work, execute)
    r = _validate(work, out)
    d = json.loads(r.stdout)
    assert r.exit_code == 0, r.output
    assert int(d["totals"]["pass"]) >= 5 and int(d["totals"]["fail"]) == 0
    assert "as stated by the submitter, not verified: a test runner" in d["claim"]["runs_on"]


@with_extra("onnxruntime", "ort")
def test_one_wrong_element_fails_that_vector_by_id(pack, tmp_path):
    out, execute = pack
    work = tmp_path / "p"
    shutil.copytree(out, work)
    manifest = json.loads((out / "manifest.json").read_text())
    vid = next(v["id"] for v in manifest["vectors"] if v["decodes"])  # conv_basic, where packed
    run_pack(work, execute, mistake=(vid, 0))
    r = _validate(work, out)
    d = json.loads(r.stdout)
    assert r.exit_code == 1 and d["claim"] is None
    [bad] = [v for v in d["vectors"] if v["status"] == "fail"]
    assert bad["id"] == vid and bad["diffs"][0]["histogram"] == {"1": "1"}


@with_extra("onnxruntime", "ort")
def test_a_missing_result_is_named(pack, tmp_path):
    out, execute = pack
    work = tmp_path / "p"
    shutil.copytree(out, work)
    run_pack(work, execute)
    key = next(
        v["key"]
        for v in json.loads((work / "manifest.json").read_text())["vectors"]
        if v["decodes"]
    )
    gone = next((work / "outputs" / key).rglob("*.npy"))
    gone.unlink()
    r = _validate(work, out)
    assert r.exit_code == 1 and f"{gone}: missing" in r.output


@with_extra("onnxruntime", "ort")
def test_results_judged_against_other_vectors_are_refused(pack, tmp_path):
    out, execute = pack
    work = tmp_path / "p"
    shutil.copytree(out, work)
    run_pack(work, execute)
    changed = tmp_path / "relu.jsonl"  # one vector's id changed: other bytes, other digest
    changed.write_text(
        (CORPUS / "vectors" / "relu.jsonl")
        .read_text()
        .replace('"id":"relu_basic"', '"id":"relu_other"')
    )
    r = CliRunner().invoke(
        main,
        [
            "validate",
            "--results",
            str(work),
            "--pack",
            str(out),
            *[f for f in FILES if "relu" not in f],
            str(changed),
        ],
    )
    assert (
        r.exit_code == 2 and "relu.jsonl" in r.output and "not among the vector files" in r.output
    )


def test_an_ethos_u_pack_holds_vela_s_models(tmp_path):
    needs("ethosu.vela", "vela")
    r = CliRunner().invoke(
        main,
        [
            "vectors",
            "pack",
            "--target",
            "ethos-u55-128",
            str(tmp_path),
            str(CORPUS / "vectors" / "relu.jsonl"),
        ],
    )
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "manifest.json").read_text())
    model = m["vectors"][0]["decodes"][0]["model"]
    assert model["path"].endswith("_vela.tflite") and (tmp_path / model["path"]).exists()
    assert m["layout"].startswith("NHWC")


@with_extra("onnxruntime", "ort")
def test_a_tampered_manifest_is_one_line(pack, tmp_path):
    out, _ = pack
    work = tmp_path / "p"
    shutil.copytree(out, work)
    m = json.loads((work / "manifest.json").read_text())
    m["vectors"][0]["id"] = "no_such_vector"
    (work / "manifest.json").write_text(json.dumps(m))
    r = _validate(work, out)
    assert r.exit_code == 2 and "Traceback" not in r.output and "manifest" in r.output


@with_extra("onnxruntime", "ort")
def test_an_acc64_pack_runs_as_a_runner_runs_it(tmp_path):
    # int64 inputs (8-bit where the input's range fits: the export's) and outputs as the
    # model declares them; the host's checks of an internal check tensor (graphs.jsonl)
    # judged from the model's check outputs
    from waiexport import write
    from waiexport.conformance.vectors import make_vector, write_lines

    from _helpers import checked

    inside = tmp_path / "checked.jsonl"
    inside.write_bytes(
        write_lines(
            [
                make_vector(
                    f"checked_{first}",
                    write(checked(first)),
                    [
                        ([np.array([[[10, -50, 150]]])], []),
                        ([np.array([[[10, -250 if first else 0, 240]]])], []),
                    ],
                )
                for first in (True, False)
            ]
        )
    )
    files = [
        str(CORPUS / "vectors" / f) for f in ("add.jsonl", "softmax.jsonl", "rescale.jsonl")
    ] + [str(CORPUS / "graphs" / "graphs.jsonl"), str(inside)]
    pack = tmp_path / "pack"
    r = CliRunner().invoke(
        main, ["vectors", "pack", "--target", "ort-cpu-acc64", str(pack), *files]
    )
    assert r.exit_code == 0, r.output
    m = json.loads((pack / "manifest.json").read_text())
    decodes = [d for v in m["vectors"] for d in v["decodes"] if "inputs" in d]
    fed = {i["dtype"] for d in decodes for i in d["inputs"] if i["name"].startswith("in")}
    assert "int64" in fed and fed <= {"int64", "int8", "uint8"}
    assert {o["dtype"] for d in decodes for o in d["outputs"]} == {"int64"}
    assert any(o["name"].startswith("check") for d in decodes for o in d["outputs"])
    assert not any(v["reason"] == "profiles acc64" for v in m["not_packed"])
    results = tmp_path / "results"
    shutil.copytree(pack, results)
    run_pack(results, on_onnxruntime)
    r = CliRunner().invoke(
        main, ["validate", "--results", str(results), "--pack", str(pack), "--json", *files]
    )
    d = json.loads(r.stdout)
    assert r.exit_code == 0, r.output
    assert int(d["totals"]["pass"]) > 40 and d["claim"]["profile"] == "acc64"


@with_extra("onnxruntime", "ort")
def test_a_folder_of_someone_s_files_or_a_board_s_results_is_refused(pack, tmp_path):
    out, execute = pack
    relu = str(CORPUS / "vectors" / "relu.jsonl")
    mine = tmp_path / "mine"
    (mine / "models").mkdir(parents=True)
    (mine / "inputs").mkdir()
    (mine / "models" / "m.onnx").write_text("mine")
    (mine / "inputs" / "x.npy").write_text("mine")
    r = CliRunner().invoke(main, ["vectors", "pack", str(mine), relu])
    assert r.exit_code == 2 and "not-empty" in r.output and "holds inputs" in r.output
    assert sorted(str(p.relative_to(mine)) for p in mine.rglob("*")) == [
        "inputs",
        "inputs/x.npy",
        "models",
        "models/m.onnx",
    ]
    # a pack its runner has filled holds a board's results: they are not the pack's to remove
    work = tmp_path / "p"
    shutil.copytree(out, work)
    run_pack(work, execute)
    before = sorted(str(p.relative_to(work)) for p in work.rglob("*"))
    r = CliRunner().invoke(main, ["vectors", "pack", str(work), relu])
    assert r.exit_code == 2 and "not-empty" in r.output, r.output
    assert sorted(str(p.relative_to(work)) for p in work.rglob("*")) == before
    # a pack as it was written is packed again
    again = tmp_path / "again"
    shutil.copytree(out, again)
    r = CliRunner().invoke(main, ["vectors", "pack", str(again), relu])
    assert r.exit_code == 0, r.output
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


@with_extra("onnxruntime", "ort")
def test_a_pack_s_report_counts_what_its_target_declines_as_the_direct_run_does(tmp_path):
    """An npu-int8 pack's claim said "63 of the 63 vectors" where validate --engine npu-int8
    said "63 of the 83 ... it does not cover what it declined": the not-packed vectors are
    counted, declined or not for this engine, as the direct run counts them."""
    files = [
        str(CORPUS / "vectors" / f"{n}.jsonl")
        for n in ("rescale", "pixel_shuffle", "chscale", "relu")
    ]
    pack, results = packed_and_run(tmp_path, "npu-int8", files)
    judged = CliRunner().invoke(
        main, ["validate", "--results", str(results), "--pack", str(pack), "--json", *files]
    )
    direct = CliRunner().invoke(main, ["validate", "--engine", "npu-int8", "--json", *files])
    assert judged.exit_code == direct.exit_code == 0, (judged.output, direct.output)
    judged, direct = json.loads(judged.stdout), json.loads(direct.stdout)
    assert judged["totals"] == direct["totals"] and int(direct["totals"]["declined"]) > 0
    for key in ("applicable", "passed", "declined"):
        assert judged["claim"][key] == direct["claim"][key], key
    assert {(v["id"], v["status"]) for v in judged["vectors"]} == {
        (v["id"], v["status"]) for v in direct["vectors"]
    }


def _only(names: list[str], into) -> None:
    """``into``, a folder holding links to the installed top-level packages of the
    distributions ``names`` and of what they require, and nothing else."""
    from importlib.metadata import distribution
    from re import split

    into.mkdir()
    seen, todo = set(), list(names)
    while todo:
        d = distribution(todo.pop())
        if d.name.lower() in seen:
            continue
        seen.add(d.name.lower())
        todo += [split(r"[ ;<>=!~\[]", r)[0] for r in d.requires or [] if "extra ==" not in r]
        for top in {f.parts[0] for f in d.files or [] if f.parts[0] != ".."}:
            src = d.locate_file(top)
            if src.exists() and not (into / top).exists() and not top.endswith(".dist-info"):
                (into / top).symlink_to(src)


@pytest.fixture(scope="module")
def device_python(tmp_path_factory):
    """A Python that holds numpy and onnxruntime (with what they require) and nothing else:
    a venv without site packages whose one path entry links to those alone, as a board."""
    import subprocess
    import sys

    needs("onnxruntime", "ort")
    root = tmp_path_factory.mktemp("device")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    _only(["numpy", "onnxruntime"], root / "site")
    (next((root / "venv" / "lib").glob("python3*")) / "site-packages" / "only.pth").write_text(
        str(root / "site") + "\n"
    )
    return str(root / "venv" / "bin" / "python")


def _run_on_device(python, tmp_path, target, *runner_args, runner_python=None):
    """A pack for ``target``, copied, run by ``waiexport/runner.py`` as a device runs it (a
    script of its own, on ``python``), and judged: the judge's report, or its error."""
    import subprocess

    pack = tmp_path / "pack"
    r = CliRunner().invoke(main, ["vectors", "pack", "--target", target, str(pack), *FILES])
    assert r.exit_code == 0, r.output
    shutil.copytree(pack, tmp_path / "results")
    shutil.copy(ROOT / "waiexport" / "runner.py", tmp_path / "runner.py")
    ran = subprocess.run(
        [python, "-I", "runner.py", str(tmp_path / "results"), *runner_args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    return _validate(tmp_path / "results", pack)


@pytest.mark.parametrize("target", ["ort-cpu", "ort-cpu-acc64"])
def test_the_runner_on_a_python_of_numpy_and_onnxruntime_alone_passes_its_pack(
    device_python, tmp_path, target
):
    import subprocess

    bare = subprocess.run([device_python, "-I", "-c", "import waiexport"], capture_output=True)
    assert bare.returncode != 0  # no waiexport there
    r = _run_on_device(device_python, tmp_path, target, "--runtime", "onnxruntime")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert int(d["totals"]["pass"]) >= 5 and int(d["totals"]["fail"]) == 0, d["totals"]
    assert d["claim"]["runs_on"].split(": ", 1)[1].startswith("onnxruntime:cpu: onnxruntime ")


@pytest.mark.parametrize(
    "target, args",
    [
        pytest.param("qnn-htp", ["--provider", "qnn"], marks=with_extra("onnxruntime_qnn", "qnn")),
        pytest.param("tflm", ["--runtime", "tflm"], marks=with_extra("tflite_micro", "tflite")),
        pytest.param(
            "tflm",
            ["--runtime", "litert", "--kernels", "ref"],
            marks=with_extra("tflite_micro", "tflite"),
        ),
    ],
)
def test_the_runner_on_an_npu_s_integer_path_passes_its_pack(tmp_path, target, args):
    import sys

    r = _run_on_device(sys.executable, tmp_path, target, *args)
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert int(d["totals"]["pass"]) >= 2 and int(d["totals"]["fail"]) == 0, d["totals"]


@pytest.mark.parametrize(
    "target, args, said",
    [
        pytest.param(
            "qnn-htp",
            ["--provider", "cpu"],
            "ran on onnxruntime:cpu: onnxruntime's CPU provider computes a QDQ model's",
            marks=with_extra("onnxruntime_qnn", "qnn"),
        ),
        pytest.param(
            "tflm",
            ["--runtime", "litert", "--kernels", "default"],
            "ran on litert:default: LiteRT's default, its XNNPACK delegate, requantises in float32",
            marks=with_extra("tflite_micro", "tflite"),
        ),
    ],
)
def test_a_pack_run_on_a_float32_path_is_not_judged_and_the_judge_says_why(
    tmp_path, target, args, said
):
    import sys

    r = _run_on_device(sys.executable, tmp_path, target, *args)
    assert r.exit_code == 2 and said in r.output and "§6 forbids" in r.output, r.output
