"""Hostile input: each reproducer of the fuzz runs ends in a result or a ``Refusal`` with the
spec's code (or one line from the CLI), memory follows what the decode holds, and export
cost follows the taps, not the stride; and a short seeded fuzz run of every input family."""

import json
import os
import random
import tracemalloc

import numpy as np
import pytest
from click.testing import CliRunner

from waiexport import Refusal, write
from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
from waiexport.cli import main
from waiexport.conformance.fuzz import FAMILIES, mutate, outcome, seeds
from waiexport.conformance.generate import CORPUS
from waiexport.reference import decode
from waiexport.targets.engines import engine

from _helpers import ROOT, jpegai_args, with_extra

HUGE = "1" * 4301  # one digit past Python's int-string limit


def _one_line(r, code=2):
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == code and len(lines) == 1 and "Traceback" not in r.output, r.output
    return lines[0]


def test_a_4301_digit_integer_in_every_json_reader(tmp_path):
    synth = json.loads((ROOT / "examples" / "int_synth.json").read_text())
    text = json.dumps(synth).replace(str(synth["layers"][0]["shift"]), HUGE, 1)
    (tmp_path / "s.json").write_text(text)
    line = _one_line(
        CliRunner().invoke(
            main, ["lower", "int_synth", str(tmp_path / "s.json"), "-o", str(tmp_path / "o")]
        )
    )
    assert ": payload_malformed: " in line
    bundle = tmp_path / "jpegai"
    (bundle / "weights").mkdir(parents=True)
    for p in (ROOT / "examples" / "jpegai").rglob("*.json"):
        copy = bundle / p.relative_to(ROOT / "examples" / "jpegai")
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(p.read_text())
    norm = bundle / "norm.json"
    norm.write_text(norm.read_text().replace('"per_channel":16', f'"per_channel":{HUGE}'))
    line = _one_line(
        CliRunner().invoke(main, ["lower", "jpegai", str(bundle), "-o", str(tmp_path / "o2")])
    )
    assert ": model_mismatch: " in line
    vec = (CORPUS / "vectors" / "relu.jsonl").read_text().splitlines()[0]
    (tmp_path / "v.jsonl").write_text(
        vec.replace('"profiles":["acc32","acc64"]', f'"profiles":["acc32","acc64"],"x":{HUGE}')
        + "\n"
    )
    line = _one_line(CliRunner().invoke(main, ["validate", str(tmp_path / "v.jsonl")]))
    assert "v.jsonl: bad-vector: line 1: not JSON" in line


NEVER = "/tmp/waiexport-never"  # the refusal comes before any output


@pytest.mark.parametrize(
    "args, words",
    [
        (lambda f, z: jpegai_args(NEVER, soz=z), "not-a-file"),
        (lambda f, z: jpegai_args(NEVER, **{"grfs-y": f}), "not-a-file"),
        (lambda f, z: jpegai_args(NEVER, **{"grfs-uv": f.parent / "big"}), "too-large"),
        (
            lambda f, z: ["run", str(ROOT / "examples" / "tiny_synth.whg1"), "--decode", str(z)],
            "not-a-file",
        ),
        (lambda f, z: ["inspect", str(f)], "not-a-file"),
        (lambda f, z: ["validate", str(f)], "not a regular file"),
        (lambda f, z: ["validate", str(z)], "not a regular file"),
    ],
)
def test_a_fifo_a_device_or_a_huge_file_is_refused_before_it_is_read(tmp_path, args, words):
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "big").write_bytes(b"0" * (2 << 20))
    line = _one_line(CliRunner().invoke(main, args(fifo, "/dev/zero")))
    assert words in line


def _vector():
    return json.loads((CORPUS / "vectors" / "relu.jsonl").read_text().splitlines()[0])


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda v: v["decodes"][0].update(expect={}), "expect is"),
        (lambda v: v["decodes"][0]["expect"]["outputs"][0].update(shape=["2"]), "shape"),
        (lambda v: v["decodes"][0]["inputs"][0].update(data=["x"] * 30), "decimal integer"),
        (lambda v: v.pop("decodes"), "no decodes"),
        (lambda v: v.update(profiles=[1]), "profiles"),
        (lambda v: v["decodes"][0]["expect"]["outputs"][0].pop("data"), "a tensor is"),
    ],
)
def test_a_vector_is_read_against_the_format_once(tmp_path, change, words):
    v = _vector()
    change(v)
    (tmp_path / "v.jsonl").write_text(json.dumps(v) + "\n")
    line = _one_line(CliRunner().invoke(main, ["validate", str(tmp_path / "v.jsonl")]))
    assert "v.jsonl: bad-vector: line 1: vector 'relu_basic'" in line and words in line


def _stage(op: str, has: str = "") -> dict:
    return json.loads(
        next(x for x in (CORPUS / "stage" / f"{op}.jsonl").read_text().splitlines() if has in x)
    )


@pytest.mark.parametrize(
    "op, has, change, words",
    [
        # the mode looked up in a dict before it was checked (the seeded fuzz run); the rest a
        # traceback in the independent checker's literal operators (a fuzz run of vectors check)
        ("mans_decode", '"mode":"fac"', lambda i: i.update(mode={"x": "1"}), "in.mode is not text"),
        ("coding_order", "", lambda i: i.update(shape="1"), "in.shape is not a list of integers"),
        ("block_stat", "", lambda i: i["x"]["data"].pop(), "in.x is not a tensor {data, shape}"),
        ("band_lookup", "", lambda i: i.update(table=["1"]), "in.table is not a list of lists"),
        (
            "mans_decode",
            '"mode":"sgm"',
            lambda i: i["spans"].append("1"),
            "in.spans is not a list of {mask, sigma}",
        ),
        ("bucket", "", lambda i: i.update(edges=True), "in.edges is not a list of integers"),
    ],
)
@pytest.mark.parametrize("command", [["validate"], ["vectors", "check"]])
def test_a_stage_vector_member_of_another_kind_is_one_line(
    tmp_path, op, has, change, words, command
):
    v = _stage(op, has)
    change(v["in"])
    (tmp_path / "v.jsonl").write_text(json.dumps(v) + "\n")
    target = tmp_path / ("v.jsonl" if command == ["validate"] else "")
    line = _one_line(CliRunner().invoke(main, [*command, str(target)]))
    assert "bad-vector: line 1: stage vector" in line and words in line


@pytest.mark.parametrize(
    "change, words",
    [
        (
            lambda v: v.update(id=v["id"] + "\u00e9"),
            r"\xe9': text outside printable ASCII has no "
            "canonical form",
        ),
        (
            lambda v: v.update(
                op="rans64_decode",
                modes={},
                expect={"symbols": []},
                **{"in": {"stream": "00" * 8, "tables": [], "reads": []}},
            ),
            "rans64_decode is defined in integer-payloads §2, which this checker does not hold",
        ),
    ],
)
def test_the_checker_says_which_vector_it_cannot_reproduce(tmp_path, change, words):
    v = _stage("bucket")
    change(v)
    (tmp_path / "bucket.jsonl").write_text(json.dumps(v) + "\n")
    r = CliRunner().invoke(main, ["vectors", "check", str(tmp_path)])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert f"DIFFERS {tmp_path / 'bucket.jsonl'}: vector " in r.output and words in r.output


def _state_of(channels):
    b = GraphBuilder()
    x = b.input(1, -5, 5)
    s = b.state(channels, -5, 5, src=0)
    b.output(b.op("relu", s))
    del x
    return b.graph()


@pytest.mark.parametrize("channels", [2**32 - 1, 2**27])
def test_a_state_input_is_planned_before_it_is_allocated(channels):
    loaded = engine("reference").load(write(_state_of(channels)))
    tracemalloc.start()
    with pytest.raises(Refusal) as r:
        loaded.sequence().step([np.zeros((1, 1, 1), np.int64)], [])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.value.code == "too_large" and peak < 2**20


def test_conv_memory_follows_the_tensors_not_the_padded_plane():
    b = GraphBuilder()
    y = b.op(
        "conv", b.input(1, -5, 5), conv([[[[3]]]], pad=2**25 - 1, stride=2**32 - 1, rq=rq(bias=[1]))
    )
    b.output(y)
    g = b.build()
    decode(g, [np.array([[[2]]])], [])  # imports and kernels outside the count
    tracemalloc.start()
    out = decode(g, [np.array([[[2]]])], [])[0]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert out.shape == (1, 1, 1) and out[0, 0, 0] == 1 and peak < 2**20  # a window of padding
    b = GraphBuilder()
    b.output(b.op("conv", b.input(1, -5, 5), conv([[[[3]]]], pad=8192, stride=8192)))
    g = b.build()
    decode(g, [np.array([[[2]]])], [])
    tracemalloc.start()
    out = decode(g, [np.array([[[2]]])], [])[0]
    assert tracemalloc.get_traced_memory()[1] < 2**20  # not the 3 GiB padded plane
    tracemalloc.stop()
    assert out.shape == (1, 3, 3) and out[0, 1, 1] == 6 and out.sum() == 6


def _strided(sh):
    b = GraphBuilder()
    b.output(
        b.op(
            "conv_transpose",
            b.input(1, -100, 100),
            conv_transpose(
                np.array([[[[3], [5]]]]),
                stride=(sh, 1),
                pad=(sh - 2, 0),
                rq=rq(shift=1, round="half_up"),
            ),
        )
    )
    return b.build()


def test_a_huge_stride_costs_what_the_taps_cost():
    from waiexport.descriptions import target
    from waiexport.targets.exporter import export

    counts = {
        sh: len(export(write(_strided(sh)), target("ort-cpu")).prepared.graph.node)
        for sh in (2**4, 2**12, 2**24)
    }
    assert len(set(counts.values())) == 1, counts
    g = _strided(2**24)
    decode(g, [np.array([[[1], [2], [3]]])], [])  # imports and kernels outside the count
    tracemalloc.start()
    out = decode(g, [np.array([[[1], [2], [3]]])], [])[0]
    assert tracemalloc.get_traced_memory()[1] < 2**20
    tracemalloc.stop()
    assert out.ravel().tolist() == [0, 0, 3, 5, 0, 0]


def test_the_gathered_transposed_convolution_is_the_literal_one():
    # a padding that crops most of the uncropped plane takes the gathered path
    rng = np.random.default_rng(8)
    b = GraphBuilder()
    b.output(
        b.op(
            "conv_transpose",
            b.input(2, -50, 50),
            conv_transpose(
                rng.integers(-9, 10, (2, 3, 3, 4)),
                stride=(7, 5),
                pad=(12, 9),
                out_pad=(2, 1),
                rq=rq(shift=2, bias=[1, 2, 3]),
            ),
        )
    )
    g = b.build()
    x = rng.integers(-50, 51, (2, 5, 6))
    assert (decode(g, [x], [])[0] == decode(g, [x], [], literal=True)[0]).all()


def test_a_seeded_fuzz_run_of_every_family_ends_in_a_result_or_a_refusal():
    start = seeds()
    rng = random.Random(2026)
    seen = {}
    for n in range(1000):  # bounded work, not time
        family = FAMILIES[n % len(FAMILIES)]
        code = outcome(family, mutate(rng, family, rng.choice(start[family])), start["_graph"][0])
        seen.setdefault(family, set()).add(code)
    assert all(len(codes) >= 2 for codes in seen.values()), seen


def _tree(folder):
    """Every file under ``folder``, by its path there, and its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(
    "args",
    [
        ["export", str(ROOT / "examples" / "tiny_synth.whg1"), "-o", "{out}.onnx"],
        [
            "export",
            str(ROOT / "examples" / "tiny_synth.whg1"),
            "--target",
            "tosa",
            "--size",
            "4x4",
            "-o",
            "{out}.tosa",
        ],
        ["vectors", "pack", "{out}", str(CORPUS / "vectors" / "relu.jsonl")],
    ],
    ids=["onnx", "tosa", "pack"],
)
@with_extra("onnxruntime", "ort")
def test_a_write_limit_leaves_the_earlier_output_whole(tmp_path, args):
    import resource
    import subprocess
    import sys

    args = [a.format(out=tmp_path / "o") for a in args]
    if "tosa" in args:
        pytest.importorskip(
            "tosa_serializer", reason="needs tosa-tools: pip install 'waiexport[tosa]'"
        )
    run = [sys.executable, "-m", "waiexport.cli", *args]
    assert subprocess.run(run, capture_output=True).returncode == 0
    before = _tree(tmp_path)
    limit = max(len(b) for b in before.values()) - 1
    r = subprocess.run(
        run,
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
    )
    assert r.returncode == 2 and "unwritable" in r.stderr, r.stderr
    assert len([x for x in r.stderr.splitlines() if not x.startswith("rewrite:")]) == 1
    assert _tree(tmp_path) == before  # nothing half-written, no part left
    assert subprocess.run(run, capture_output=True).returncode == 0 and _tree(tmp_path) == before


@pytest.mark.parametrize("limit", [1000, 3000, 20000])
def test_deep_nesting_is_bad_input_whatever_the_recursion_limit(tmp_path, limit):
    """A stage vector nested 2,000 deep: at a recursion limit that let ``json.loads`` parse
    it (a hypothesis test raises the limit, and CI saw it), the reader recursed past it."""
    import sys

    line = (CORPUS / "stage" / "block_stat.jsonl").read_text().splitlines()[0]
    v = json.loads(line)
    v["in"]["x"] = "MARK"
    (tmp_path / "v.jsonl").write_text(
        json.dumps(v).replace('"MARK"', "[" * 2000 + "]" * 2000) + "\n"
    )
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        line = _one_line(CliRunner().invoke(main, ["validate", str(tmp_path / "v.jsonl")]))
    finally:
        sys.setrecursionlimit(old)
    assert "v.jsonl: bad-vector: line 1: not JSON: nested deeper than 32 levels" in line


def _fifo(folder):
    import os

    os.mkfifo(folder / "x.jsonl")


def _zero(folder):
    (folder / "x.jsonl").symlink_to("/dev/zero")


def _sparse(folder):
    with open(folder / "x.jsonl", "wb") as f:
        f.truncate(3 << 30)


@pytest.mark.parametrize(
    "make, words",
    [
        (_fifo, "not a regular file"),
        (_zero, "not a regular file"),
        (_sparse, "larger than the 67,108,864 bytes"),
    ],
    ids=["FIFO", "link to /dev/zero", "sparse 3 GiB"],
)
def test_vectors_check_reads_regular_files_within_their_limit(tmp_path, make, words):
    """``vectors check`` read each file whole: a FIFO hung it, a link to /dev/zero read until
    memory ran out, a sparse 3 GiB file was read whole."""
    make(tmp_path)
    tracemalloc.start()
    try:
        line = _one_line(CliRunner().invoke(main, ["vectors", "check", str(tmp_path)]))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "bad-vector" in line and words in line and peak < 64 << 20, (line, peak)


def test_a_file_past_its_limit_is_refused_before_any_read(tmp_path):
    """Every bounded read read up to its limit before it said too-large (2 GiB of a 3 GiB
    sparse graph, 2.1 GB resident): the size the open file gives is checked first."""
    from waiexport.files import TooLarge, read_bounded

    path = tmp_path / "g.whg1"
    with open(path, "wb") as f:
        f.truncate(3 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge):
            read_bounded(path, 2 << 30)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_paths_outside_ascii_are_escaped_in_every_report(tmp_path, monkeypatch):
    """``--json`` with a non-ASCII path ended in ValueError's traceback after the output was
    written, and a vector file name that is not UTF-8 did the same in ``validate --json``."""
    monkeypatch.chdir(tmp_path)
    odd = os.fsdecode(b"a\xff.jsonl")
    (tmp_path / odd).write_bytes((CORPUS / "vectors" / "abs.jsonl").read_bytes())
    (tmp_path / "v\u00e9").mkdir()
    abs_vectors = (CORPUS / "vectors" / "abs.jsonl").read_bytes()
    (tmp_path / "v\u00e9" / "abs.jsonl").write_bytes(abs_vectors)
    runs = [
        ["lower", "int_synth", str(ROOT / "examples" / "int_synth.json"), "-o", "l\u00e9"],
        ["examples", "make", "ex\u00e9"],
        ["vectors", "check", "v\u00e9"],
        ["validate", odd],
    ]
    if _has("onnxruntime"):
        runs.append(["export", str(ROOT / "examples" / "tiny_synth.whg1"), "-o", "caf\u00e9.onnx"])
    for args in runs:
        r = CliRunner().invoke(main, [*args, "--json"])
        assert r.exit_code == 0 and "Traceback" not in r.output, (args, r.output[-500:])
        json.loads(r.stdout)
        assert r.stdout.isascii() and ("\\u00e9" in r.stdout or "\\udcff" in r.stdout), args


def _has(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def test_a_key_given_twice_is_refused_naming_it(tmp_path):
    """Duplicate JSON keys in vectors and decodes were accepted, the last one winning."""
    line = (CORPUS / "vectors" / "abs.jsonl").read_text().splitlines()[0]
    assert line.startswith('{"decodes":')
    (tmp_path / "v.jsonl").write_text(line[:-1] + ',"id":"another"}\n')
    out = _one_line(CliRunner().invoke(main, ["validate", str(tmp_path / "v.jsonl")]))
    assert "the key 'id' appears twice" in out
    decode = tmp_path / "d.json"
    decode.write_text('{"inputs": [], "scalars": [], "scalars": [1]}')
    out = _one_line(
        CliRunner().invoke(
            main, ["run", str(ROOT / "examples" / "tiny_synth.whg1"), "--decode", str(decode)]
        )
    )
    assert "the key 'scalars' appears twice" in out


def test_an_unknown_refusal_code_in_a_vector_is_refused_in_a_short_line(tmp_path):
    """An unknown expect.refuse code was echoed as a 100 kB line."""
    v = json.loads((CORPUS / "vectors" / "abs.jsonl").read_text().splitlines()[0])
    v["decodes"][0]["expect"] = {"refuse": "x" * 100_000}
    (tmp_path / "v.jsonl").write_text(json.dumps(v) + "\n")
    out = _one_line(CliRunner().invoke(main, ["validate", str(tmp_path / "v.jsonl")]))
    assert "is not a refusal code" in out and len(out) < 1000
