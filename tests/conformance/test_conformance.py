"""The conformance corpus (§14): generated from named cases, reproduced byte for byte by the
independent checker, covering every operator and every listed item; validate catches a
wrong engine by name."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from waiexport.cli import main
from waiexport.conformance.cases import GRAPHS, OPERATORS
from waiexport.conformance.checker import check_dir
from waiexport.conformance.generate import CORPUS, generate
from waiexport.conformance.validate import diff, files_under, validate
from waiexport.optable import BY_NAME, OPS
from waiexport.reference import arrays
from waiexport.refusal import Refusal
from waiexport.targets.engines import engine
from waiexport.targets.engines.base import Loaded
from waiexport.targets.engines.reference import ReferenceEngine

from _helpers import mistaken, with_extra

ROUNDS = ("floor", "half_up", "half_even")


def required_items() -> set[str]:
    """§14.1 items 1–6 and §14.2, as the tags the cases carry."""
    items = {
        "1:partial-sum-ends",
        "3:kernel-larger-than-input",
        "3:output-padding-ge-stride",
        "3:stride-gt-kernel",
        "3:1x1-plane",
        "3:odd-sizes",
        "4:acc32-max",
        "4:acc32-min",
        "4:acc32-one-past",
        "5:check-ends",
        "5:check-one-past",
        "5:scalar-ends",
        "5:scalar-one-past",
        "6:igdn-term-floor",
        "6:leaky-floor",
        "6:softmax-sum",
        "6:elu-zero",
        "6:layernorm-odd-half",
        "6:layernorm-eps-max",
        "6:exp-n62-n63",
        "6:sigmoid-elu-min-refused",
        "6:sigmoid-elu-min-plus-one",
        "6:rq-q-past-64",
        "g:phase-form",
        "g:state-three",
    }
    items |= {
        f"2:{m}:{sign}:{s}"
        for m in ROUNDS
        for sign in "+-"
        for s in (0, 1, 31, 32, 62, 63, 64, 127)
    }
    items |= {
        f"2:{m}:{sign}:{s}:acc32" for m in ROUNDS for sign in "+-" for s in (0, 1, 31, 32, 62)
    }
    # every shape rule of §5 that can refuse: at load (channels) or at run time (sizes)
    items |= {
        f"5:plan:{op}"
        for op in (
            "conv",
            "conv_transpose",
            "add",
            "concat",
            "chunk_add",
            "split",
            "pixel_shuffle",
            "pixel_unshuffle",
            "crop_to",
            "crop",
            "subpos_split",
            "subpos_merge",
            "mul",
            "gram",
            "apply",
        )
    }
    items |= {f"g:load:{k}" for k in range(1, 9)} | {f"g:run:{k}" for k in range(1, 5)}
    items |= {"g:lowering:int_synth", "g:lowering:jpegai"}
    return items


def test_every_listed_item_is_covered_by_a_named_case():
    covered = {
        item
        for cases in [*OPERATORS.values(), *GRAPHS.values()]
        for fn in cases
        for item in getattr(fn, "items", ())
    }
    assert required_items() - covered == set()


def test_every_operator_has_cases_and_ids_are_unique():
    assert set(OPERATORS) == set(BY_NAME)
    for name, cases in [*OPERATORS.items(), *GRAPHS.items()]:
        ids = [fn.__name__ for fn in cases]
        assert len(ids) == len(set(ids)), name
        assert cases


def test_the_committed_corpus_is_what_the_generator_writes(tmp_path):
    for path in generate(tmp_path):
        committed = CORPUS / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), committed


def test_the_independent_checker_reproduces_the_corpus():
    checks, skipped = check_dir(CORPUS)
    assert checks and all(c.same for c in checks), [c.path for c in checks if not c.same]
    assert skipped == []


def test_the_checker_notices_a_wrong_expectation(tmp_path):
    src = (CORPUS / "vectors" / "relu.jsonl").read_bytes()
    bad = tmp_path / "relu.jsonl"
    first = b'"expect":{"outputs":[{"data":["'
    bad.write_bytes(src.replace(first, first + b"1", 1))
    [check], _ = check_dir(tmp_path)
    assert not check.same and "relu_basic" in check.first_difference


def test_corpus_is_small_and_well_formed():
    files = files_under([CORPUS])
    assert sum(f.stat().st_size for f in files) < 4 * 2**20  # the README's stated budget
    for f in files:
        data = f.read_bytes()
        assert data.endswith(b"\n") and b"\r" not in data and b" " not in data.split(b'"id"')[0]


def test_reference_passes_the_whole_corpus():
    results = validate(engine("reference"), files_under([CORPUS]))
    assert results and all(r.status == "pass" for r in results), [
        (r.vid, r.reason) for r in results if r.status != "pass"
    ]


def test_onnxruntime_passes_every_acc32_npu_vector():
    results = validate(engine("ort-cpu"), files_under([CORPUS]))
    assert not [r for r in results if r.status == "fail"]
    assert sum(r.status == "pass" for r in results) > 50
    npu = {op.name for op in OPS if op.npu != "no"}
    assert {r.file for r in results if r.status == "pass"} >= npu


class DropsRefusals(ReferenceEngine):
    """A wrong engine: never refuses a check input (it clamps instead)."""

    name = "no-refusal"

    def load(self, data):
        loaded = super().load(data)

        def run(inputs, scalars):
            try:
                return loaded.run(inputs, scalars)
            except Refusal as r:
                if r.code != "field_range":
                    raise
                g = loaded.graph
                return loaded.run(
                    [
                        np.clip(x, g.tensor(i.tensor).lo, g.tensor(i.tensor).hi)
                        for x, i in zip(inputs, g.inputs)
                    ],
                    scalars,
                )

        return Loaded(loaded.graph, run)


def test_a_wrong_rounding_is_caught_by_name():
    """A test double of the reference whose half_up sends ties toward −∞."""

    def ties_down(real, p, s, mode):
        if mode != "half_up":
            return real(p, s, mode)
        # ⌊(p − 1 + 2^(s−1)) / 2^s⌋: the same except that a tie goes down
        return real(arrays.sub(p, (np.asarray(s) > 0).astype(np.int64)), s, mode)

    results = validate(
        mistaken("ties-down", ties_down), files_under([CORPUS / "vectors" / "rescale.jsonl"])
    )
    failed = {r.vid for r in results if r.status == "fail"}
    assert "rescale_half_up_ties_shift_1" in failed
    assert not any("floor" in v or "half_even" in v for v in failed)
    one = next(r for r in results if r.vid == "rescale_half_up_ties_shift_1")
    assert one.diffs[0]["histogram"] == {-1: one.diffs[0]["count"]}


def test_a_dropped_refusal_is_caught_by_name():
    results = validate(DropsRefusals(), files_under([CORPUS / "vectors" / "clamp.jsonl"]))
    [bad] = [r for r in results if r.status == "fail"]
    assert bad.vid == "clamp_input_check_range" and "expected refuse field_range" in bad.reason


def test_diff_reports_integers():
    e = np.array([[[1, 2, 3], [4, 5, 6]]])
    g = np.array([[[1, 3, 3], [4, 5, 4]]])
    assert diff(e, g) == {
        "first": [0, 0, 1],
        "expected": 2,
        "got": 3,
        "count": 2,
        "largest": 2,
        "histogram": {-2: 1, 1: 1},
    }
    assert diff(e, e) == {}


@with_extra("onnxruntime", "ort")
def test_validate_command(tmp_path):
    r = CliRunner().invoke(main, ["validate", str(CORPUS / "vectors" / "relu.jsonl")])
    assert r.exit_code == 0 and "not a full-profile conformance claim" in r.output
    r = CliRunner().invoke(
        main, ["validate", "--json", "--engine", "ort-cpu", str(CORPUS / "graphs")]
    )
    d = json.loads(r.output.split("\n", 1)[-1] if not r.output.startswith("{") else r.output)
    assert d["claim"]["profile"] == "acc32" and r.exit_code == 0
    bad = tmp_path / "x.jsonl"
    bad.write_text("not json\n")
    assert CliRunner().invoke(main, ["validate", str(bad)]).exit_code == 2
    assert CliRunner().invoke(main, ["validate", "--engine", "nope"]).exit_code == 2


def test_vectors_commands(tmp_path):
    r = CliRunner().invoke(main, ["vectors", "generate", str(tmp_path)])
    assert r.exit_code == 0
    r = CliRunner().invoke(main, ["vectors", "check", str(tmp_path)])
    assert r.exit_code == 0 and "DIFFERS" not in r.output


def test_locate_names_the_operator_and_counts_ties():
    from waiexport import write
    from waiexport.capabilities.examples import tiny_synth
    from waiexport.conformance.locate import locate
    from waiexport.targets.engines.ort import OrtEngine

    loaded = OrtEngine().load(write(tiny_synth()))
    x = np.random.default_rng(1).integers(-128, 128, (8, 4, 4))
    assert locate(loaded, [x], []) is None  # onnxruntime agrees everywhere
    # the reference made wrong at ties of its first requantisation: the engine now "differs"
    found = locate(
        loaded,
        [x],
        [],
        rounding=lambda real, p, s, mode: real(
            arrays.add(p, (np.asarray(s) > 0).astype(np.int64)), s, mode
        ),
    )
    assert found["operator"] == 0 and found["op"] == "conv" and found["differing"] > 0


@with_extra("onnxruntime", "ort")
@pytest.mark.parametrize("name, lo, hi", [("npu-int8", -128, 127), ("ort-cpu", 0, 2269)])
def test_every_tensor_locate_reads_is_in_the_graphs_channel_order(name, lo, hi):
    # a conv read by a pixel_shuffle alone has the shuffle's order folded into its channels
    # (npu-int8's DCR, ort-cpu's NHWC twin); the model's tensor is in that order, so
    # locate's view of it must put it back, or the conv is named as differing
    from waiexport import params as P
    from waiexport import write
    from waiexport.builder import GraphBuilder, conv, rq
    from waiexport.reference import decode

    rng = np.random.default_rng(0)
    b = GraphBuilder()
    y = b.op(
        "conv",
        b.input(2, lo, hi),
        conv(rng.integers(-20, 20, (8, 2, 3, 3)), pad=1, rq=rq(shift=6, round="half_up")),
    )
    b.output(b.op("pixel_shuffle", y, P.Factor(2)))
    loaded = engine(name).load(write(b.build()))
    x = rng.integers(lo, hi + 1, (2, 4, 4))
    got, want = loaded.run_all([x], []), decode(loaded.graph, [x], [], keep=True)
    assert got.keys() and all((got[t] == want[t]).all() for t in got)


@with_extra("onnxruntime", "ort")
def test_validate_locate_flag():
    r = CliRunner().invoke(
        main,
        ["validate", "--locate", "--engine", "ort-cpu", str(CORPUS / "vectors" / "conv.jsonl")],
    )
    assert r.exit_code == 0
