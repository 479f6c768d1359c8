"""The stage operators (§5E): hand-computed facts, refusals in order with their ``at``, the
``mans`` encoder read back by the decoder, the vectorised operators against the checker's
literal ones, and the stage corpus (§14.1)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiexport.conformance.checker import check_dir
from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import files_under, report, validate
from waiexport.conformance.vectors import read_vectors
from waiexport.reference.literal.stage import LITERAL_STAGE as LITERAL
from waiexport.reference.stage import ELSEWHERE, STAGE_OPS, StageRefusal, run
from waiexport.reference.stage.bucket import bucket
from waiexport.reference.stage.mans_decode import (
    Window,
    decode_fac,
    decode_sgm,
    latent_tables,
    sgm_symbols,
    zp_table,
)
from waiexport.reference.stage.mans_encode import EncodeError, coding, encode_fac, encode_sgm
from waiexport.reference.stage.residual_step import narrow_form, residual_step
from waiexport.refusal import CODES
from waiexport.targets.engines import engine

from _helpers import examples

FAST = settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))


def outcome(fn):
    try:
        return "ok", fn()
    except StageRefusal as r:
        return r.code, r.at


def both(op, inp, modes=None):
    """The vectorised and the literal operator agree; their common outcome."""
    modes = modes or {}
    a, b = outcome(lambda: run(op, inp, modes)), outcome(lambda: LITERAL[op](inp, modes))
    assert a == b
    return a


# --- hand-computed facts ---------------------------------------------------------------


def test_the_stream_codes_are_known():
    assert {"stream_exhausted", "stream_noncanonical"} <= CODES


def test_the_fac_preprocessing_table():
    zp = zp_table()
    assert (zp[511], zp[256], zp[255], zp[1]) == (255, 0, 510, 2048)


def test_every_latent_slot_is_written_with_next_in_1_to_511():
    rng = np.random.default_rng(3)
    for width in (1, 2, 7, 64, 512):
        cuts = np.sort(rng.integers(0, 257, width - 1))
        p = np.diff(np.concatenate([[0], cuts, [256]]))
        row = latent_tables([p.tolist()])[0]
        nb, base, sym = row >> 24, (row >> 16) & 255, row & 0xFFFF
        nxt = (base + 256) >> nb
        assert (nb <= 8).all() and ((nxt << nb) == base + 256).all()
        assert ((1 <= nxt) & (nxt <= 511)).all()
        for k in np.flatnonzero(p):  # column k: P[k] slots, next = P[k] … 2P[k] − 1
            value = k // 2 if k % 2 == 0 else -(k + 1) // 2
            mine = (sym.astype(np.int64) ^ 0x8000) - 0x8000 == value
            assert sorted(nxt[mine]) == list(range(p[k], 2 * p[k]))


def test_the_window_reads_its_states_behind_the_sentinel():
    # LE64(3) over 8 zero bytes and [34 12 01]: sentinel at bit 56, s1 = 0x12, s2 = 0x34,
    # then a flush of 7 XOR 5 = 2 bytes
    w = Window(bytes([0x34, 0x12, 0x01]))
    assert w.s == [0x12, 0x34] and (w.p, w.b) == (1, 56)


def test_a_one_column_table_reads_no_bits_after_init():
    spans = [{"mask": [True] * 5, "sigma": [0] * 5}]
    assert decode_sgm(bytes([0x34, 0x12, 0x01]), [[256]], [1], spans) == [[0] * 5]


@pytest.mark.parametrize("memory", [b"", bytes(8), b"\xff", b"\x01"])
def test_init_refusals_are_at_0(memory):
    assert outcome(lambda: decode_fac(memory, [[0] * 63], [4])) == ("stream_exhausted", 0)


def test_bucket_bounds():
    sigma = np.arange(-30, 30)
    ceil = bucket(sigma, [-10, 0, 0, 12], "ceil")
    floor = bucket(sigma, [-10, 0, 0, 12], "floor")
    assert ceil.min() == 0 and ceil.max() == 3 and floor.min() == 0 and floor.max() == 4
    assert bucket(np.array([0]), [0, 5], "ceil")[0] == 0  # (N − 1) − [σ′ = e_0 ≤ e_0]
    assert bucket(np.array([0]), [0, 5], "floor")[0] == 1  # e_1 = 0 ≤ σ


def test_residual_step_identity_and_its_width():
    assert narrow_form(3, 0, 255) and narrow_form(65535, -32768, 32767)
    hi = 2**31 - 1
    assert not narrow_form(65535, hi - 65535, hi)
    assert residual_step([hi], [2], 65535, hi - 65535, hi)[0] == hi
    r_big = (255 - 0) // 3 + 1
    for r in (r_big, r_big + 1, -r_big, -r_big - 1):
        assert residual_step([100], [r], 3, 0, 255)[0] == min(max(100 + 3 * r, 0), 255)


# --- refusals, in order ------------------------------------------------------------------


def test_conditions_come_before_the_window():
    # a bad table with an empty stream is the table's refusal (at −1), not the stream's
    assert both(
        "mans_decode", {"memory": "", "mode": "fac", "rows": [[1] * 62], "lengths": [4]}
    ) == ("model_mismatch", -1)
    assert both(
        "mans_decode", {"memory": "", "mode": "sgm", "pmf": [[255]], "bounds": [0], "spans": []}
    ) == ("model_mismatch", -1)


@pytest.mark.parametrize(
    "op, inp, modes, want",
    [
        ("dequantize", {"sym": 1, "f": 63, "base": 0}, {}, ("field_range", 0)),
        ("dequantize", {"sym": 1, "f": 62, "base": 2**62}, {}, ("field_range", 0)),
        ("scale_index", {"v": 1, "s": 128, "n": 1}, {}, ("model_mismatch", -1)),
        (
            "block_stat",
            {"x": {"data": [1], "shape": [1, 1, 1]}, "b": 0, "s": 0, "lo": 0, "hi": 0},
            {},
            ("model_mismatch", -1),
        ),
        ("bucket", {"sigma": 0, "edges": [2, 1]}, {"bucket": "floor"}, ("model_mismatch", -1)),
        (
            "band_lookup",
            {"v": 0, "edges": [1], "table": [[1, 2]], "row": 1},
            {},
            ("model_mismatch", -1),
        ),
        (
            "residual_step",
            {"pred": 0, "r": 0, "q": 0, "lo": 0, "hi": 1},
            {},
            ("model_mismatch", -1),
        ),
        ("coding_order", {"shape": [1, 1, 1], "order": "zigzag"}, {}, ("model_mismatch", -1)),
    ],
)
def test_each_refusal_has_its_code_and_at(op, inp, modes, want):
    assert both(op, inp, modes) == want


# --- the encoder, read back --------------------------------------------------------------


@st.composite
def pmf_rows(draw):
    width = draw(st.integers(1, 24))
    rows = []
    for _ in range(draw(st.integers(1, 3))):
        cuts = sorted(draw(st.lists(st.integers(0, 256), min_size=width - 1, max_size=width - 1)))
        rows.append([b - a for a, b in zip([0, *cuts], [*cuts, 256])])
    return rows


def _codable(p: list[int], beta: int, draw) -> int | None:
    """A symbol row ``p`` with bound ``beta`` can code (direct or escaped), or None."""
    direct, escape = coding(p, beta)
    escapes = []
    if escape:
        escapes = [
            beta + draw(st.integers(0, 32767 - beta)),
            -beta - draw(st.integers(0, 32767 - beta)),
            beta,
            -beta,
        ]
    return draw(st.sampled_from(direct + escapes)) if direct + escapes else None


@FAST
@given(pmf=pmf_rows(), data=st.data())
def test_sgm_round_trips(pmf, data):
    bounds = [data.draw(st.integers(0, 12)) for _ in pmf]
    spans, want = [], []
    for _ in range(data.draw(st.integers(0, 3))):
        n = data.draw(st.integers(0, 11))
        mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
        sigma = data.draw(st.lists(st.integers(0, len(pmf) - 1), min_size=n, max_size=n))
        syms = [_codable(pmf[s], bounds[s], data.draw) if m else 0 for m, s in zip(mask, sigma)]
        mask = [m and y is not None for m, y in zip(mask, syms)]  # none codable: unmasked
        syms = [0 if y is None else y for y in syms]
        spans.append({"mask": mask, "sigma": sigma, "symbols": syms})
        want.append([y if m else 0 for y, m in zip(syms, mask)])
    stream = encode_sgm(pmf, bounds, spans)
    got = decode_sgm(stream, pmf, bounds, [{"mask": s["mask"], "sigma": s["sigma"]} for s in spans])
    assert got == want
    assert both(
        "mans_decode",
        {
            "memory": stream.hex(),
            "mode": "sgm",
            "pmf": pmf,
            "bounds": bounds,
            "spans": [{"mask": s["mask"], "sigma": s["sigma"]} for s in spans],
        },
    ) == ("ok", {"symbols": want})


@st.composite
def count_rows(draw):
    return sorted(draw(st.lists(st.integers(0, 255), min_size=63, max_size=63)))


@FAST
@given(rows=st.lists(count_rows(), min_size=0, max_size=3), data=st.data())
def test_fac_round_trips_and_cuts_agree(rows, data):
    symbols = [data.draw(st.lists(st.integers(0, 63), max_size=17)) for _ in rows]
    stream = encode_fac(rows, symbols)
    assert decode_fac(stream, rows, [len(s) for s in symbols]) == symbols
    cut = data.draw(st.integers(0, len(stream)))
    both(
        "mans_decode",
        {
            "memory": stream[cut:].hex(),
            "mode": "fac",
            "rows": rows,
            "lengths": [len(s) for s in symbols],
        },
    )


@st.composite
def spoiled_row(draw):
    """A row of 63 counts, sound or broken in one way: below 0 first, above 255 last, or a
    decrease."""
    row = draw(count_rows())
    how = draw(st.sampled_from(["sound", "low", "high", "decrease"]))
    if how == "low":
        row[0] = -1
    elif how == "high":
        row[-1] = 256
    elif how == "decrease":
        at = draw(st.integers(0, 61))
        row[at], row[at + 1] = row[at + 1] + 1, row[at]
    return row


@FAST
@given(rows=st.lists(spoiled_row(), min_size=0, max_size=4), data=st.data())
def test_fac_rows_as_one_array_are_checked_as_the_lists_are(rows, data):
    # the typed rows' one-pass check against the list form's literal one: the same symbols,
    # or the same refusal in the same words
    def said(fn):
        try:
            return "ok", fn()
        except StageRefusal as r:
            return r.code, r.at, r.detail

    memory, lengths = (
        data.draw(st.binary(max_size=12)),
        [data.draw(st.integers(0, 3)) for _ in rows],
    )
    assert said(
        lambda: decode_fac(memory, np.asarray(rows, np.int64).reshape(-1, 63), lengths)
    ) == said(lambda: decode_fac(memory, rows, lengths))


def test_a_symbol_the_tables_cannot_code_is_named():
    with pytest.raises(EncodeError, match="strictly between"):
        encode_sgm([[128, 0, 0, 0, 0, 128]], [3], [{"mask": [True], "sigma": [0], "symbols": [1]}])


# --- vectorised against literal ------------------------------------------------------------

ints = st.integers(-(2**40), 2**40)


@FAST
@given(
    v=ints,
    s=st.integers(-1, 130),
    n=st.integers(-1, 40),
    f=st.integers(-1, 64),
    base=st.integers(-(2**63), 2**63),
)
def test_scalar_operators_agree(v, s, n, f, base):
    both("scale_index", {"v": v, "s": s, "n": n})
    both("dequantize", {"sym": v, "f": f, "base": base})
    both("coded", {"v": v, "thr": n})


@FAST
@given(
    sigma=st.integers(-50, 50),
    edges=st.lists(st.integers(-50, 50), max_size=5),
    rule=st.sampled_from(["ceil", "floor", "round"]),
    row=st.integers(-1, 2),
    table=st.lists(st.lists(st.integers(-99, 99), min_size=1, max_size=6), max_size=3),
)
def test_comparison_operators_agree(sigma, edges, rule, row, table):
    both("bucket", {"sigma": sigma, "edges": edges}, {"bucket": rule})
    both("band_lookup", {"v": sigma, "edges": edges, "table": table, "row": row})


@FAST
@given(
    lo=st.integers(-(2**31), 2**31 - 1),
    span=st.integers(-1, 200000),
    q=st.integers(0, 65536),
    r=st.integers(-(2**31) - 1, 2**31),
    data=st.data(),
)
def test_residual_step_agrees_in_both_forms(lo, span, q, r, data):
    hi = lo + span
    pred = data.draw(st.integers(min(lo, hi) - 1, max(lo, hi) + 1))
    both("residual_step", {"pred": pred, "r": r, "q": q, "lo": lo, "hi": hi})


@FAST
@given(
    c=st.integers(0, 3),
    h=st.integers(0, 6),
    w=st.integers(0, 6),
    b=st.integers(0, 7),
    s=st.integers(0, 128),
    big=st.booleans(),
    data=st.data(),
)
def test_block_stat_and_coding_order_agree(c, h, w, b, s, big, data):
    top = 2**62 if big else 2**31
    x = {
        "data": data.draw(st.lists(st.integers(-top, top), min_size=c * h * w, max_size=c * h * w)),
        "shape": [c, h, w],
    }
    lo = data.draw(st.integers(-(2**40), 2**10))
    both(
        "block_stat",
        {"x": x, "b": b, "s": s, "lo": lo, "hi": lo + data.draw(st.integers(-1, 2**41))},
    )
    for order in ("raster", "checkerboard"):
        both(
            "coding_order", {"shape": [c, h, w], "order": order, "anchor": data.draw(st.booleans())}
        )


def test_clamped_results_of_values_past_i32_are_int64_arrays():
    # a jpegai gain past i32 made likely an object array, which no .npy holds without pickles
    from waiexport.reference.stage.block_stat import block_stat
    from waiexport.reference.stage.scale_index import scale_index

    x = np.array([[[-(2**31) - 1, 5], [2**40, 7]]], np.int64)
    likely = block_stat(x, 1, 6, 0, 4351)
    index = scale_index(x, 7, 32)
    assert likely.dtype == np.int64 and index.dtype == np.int64
    assert (
        likely.reshape(-1).tolist()
        == LITERAL["block_stat"](
            {
                "x": {"data": x.reshape(-1).tolist(), "shape": [1, 2, 2]},
                "b": 1,
                "s": 6,
                "lo": 0,
                "hi": 4351,
            },
            {},
        )["out"]["data"]
        == [0, 0, 4351, 0]
    )
    assert index.reshape(-1).tolist() == [
        LITERAL["scale_index"]({"v": v, "s": 7, "n": 32}, {})["index"] for v in x.flat
    ]


@FAST
@given(pmf=pmf_rows(), memory=st.binary(max_size=40), data=st.data())
def test_sgm_on_random_bytes_agrees(pmf, memory, data):
    bounds = [data.draw(st.integers(0, 255)) for _ in pmf]
    spans = []
    for _ in range(data.draw(st.integers(0, 3))):
        n = data.draw(st.integers(0, 11))
        spans.append(
            {
                "mask": data.draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                "sigma": data.draw(st.lists(st.integers(0, len(pmf) - 1), min_size=n, max_size=n)),
            }
        )
    both(
        "mans_decode",
        {"memory": memory.hex(), "mode": "sgm", "pmf": pmf, "bounds": bounds, "spans": spans},
    )


@FAST
@given(
    pmf=pmf_rows(),
    memory=st.binary(max_size=60),
    c=st.integers(0, 3),
    hw=st.integers(0, 12),
    data=st.data(),
)
def test_the_plane_form_decodes_as_the_spans_do(pmf, memory, c, hw, data):
    """``sgm_symbols`` (the jpegai path's whole planes, checked by array) against the span
    form and so the literal twin: the same symbols, or the same refusal at the same place."""
    bounds = [data.draw(st.integers(0, 255)) for _ in pmf]
    mask = np.array(
        data.draw(st.lists(st.booleans(), min_size=c * hw, max_size=c * hw)), dtype=bool
    )
    sigma = np.array(
        data.draw(st.lists(st.integers(0, len(pmf) - 1), min_size=c * hw, max_size=c * hw)),
        dtype=np.int64,
    )
    spans = [
        {"mask": m.tolist(), "sigma": s.tolist()}
        for m, s in zip(mask.reshape(c, hw), sigma.reshape(c, hw))
    ]
    plane = outcome(
        lambda: sgm_symbols(memory, pmf, bounds, mask, sigma, [hw] * c).reshape(c, hw).tolist()
    )
    want = both(
        "mans_decode",
        {"memory": memory.hex(), "mode": "sgm", "pmf": pmf, "bounds": bounds, "spans": spans},
    )
    assert plane == (("ok", want[1]["symbols"]) if want[0] == "ok" else want)


def test_the_plane_form_refuses_a_distribution_that_names_no_row():
    with pytest.raises(StageRefusal, match="names no row") as e:
        sgm_symbols(
            bytes([0x34, 0x12, 0x01]), [[256]], [1], np.ones(2, bool), np.array([0, 1]), [2]
        )
    assert (e.value.code, e.value.at) == ("model_mismatch", -1)


# --- the corpus ----------------------------------------------------------------------------


def test_the_stage_corpus_has_a_file_per_operator_here():
    assert {p.stem for p in (CORPUS / "stage").glob("*.jsonl")} == set(STAGE_OPS)
    assert not set(STAGE_OPS) & set(ELSEWHERE)


def test_the_checker_reproduces_the_stage_corpus():
    checks, skipped = check_dir(CORPUS / "stage")
    assert checks and not skipped and all(c.same for c in checks)


def test_validate_runs_the_stage_corpus_on_the_reference_only():
    files = files_under([CORPUS / "stage"])
    ref = report(engine("reference"), validate(engine("reference"), files))
    assert (
        ref["totals"]["pass"] == sum(1 for f in files for _ in open(f))
        and ref["totals"]["fail"] == 0
    )
    ort = validate(engine("ort-cpu"), files)
    assert {r.status for r in ort} == {"skip"} and "no stage operators" in ort[0].reason


class OffByOneStage:
    """The reference engine, except that ``scale_index`` returns one more."""

    name, profile, subset = "off-by-one-stage", "acc64", "full"

    def load(self, data):
        return engine("reference").load(data)

    def stage(self, op, inp, modes):
        out = run(op, inp, modes)
        return {"index": out["index"] + 1} if op == "scale_index" else out


def test_a_stage_engine_that_is_off_by_one_fails_by_id():
    results = validate(OffByOneStage(), files_under([CORPUS / "stage" / "scale_index.jsonl"]))
    bad = [r for r in results if r.status == "fail"]
    assert bad and all("expected" in r.reason for r in bad)
    assert all(r.status == "pass" for r in results if "refused" in r.vid)


class _Agreeable:
    """A value that says it equals anything."""

    def __eq__(self, other):
        return True


class ReturningStage(OffByOneStage):
    """The reference engine, except that each stage result is given ``mistake``."""

    def __init__(self, mistake):
        self.mistake = mistake

    def stage(self, op, inp, modes):
        return self.mistake(run(op, inp, modes))


def _deep(f, x):
    """``x`` with ``f`` applied to each integer inside it."""
    if isinstance(x, dict):
        return {k: _deep(f, v) for k, v in x.items()}
    if isinstance(x, list):
        return [_deep(f, v) for v in x]
    return f(x) if type(x) is int else x


def _has_int(x) -> bool:
    return _deep(lambda v: None, x) != x


STAGE_MISTAKES = {
    "an object that says it equals anything": (
        lambda out: _Agreeable(),
        lambda out: True,
        "result is _Agreeable",
    ),
    "integers as floats": (lambda out: _deep(float, out), _has_int, "is float"),
    "one past, as an integer that says it is equal": (
        lambda out: _deep(
            lambda v: type("Same", (int,), {"__eq__": lambda s, o: True, "__hash__": int.__hash__})(
                v + 1
            ),
            out,
        ),
        _has_int,
        "is Same",
    ),
    "a list that holds itself": (
        lambda out: (lambda a: a.append(a) or a)([]),
        lambda out: True,
        "nested deeper than 32 levels",
    ),
    "lists as integer arrays and integers as numpy's": (
        lambda out: _deep(
            np.int64,
            {
                k: np.array(v)
                if isinstance(v, list) and v and all(type(x) is int for x in v)
                else v
                for k, v in out.items()
            },
        ),
        None,
        "",
    ),
}


@pytest.mark.parametrize("mistake", sorted(STAGE_MISTAKES))
def test_a_stage_result_passes_only_as_the_values_expected(mistake):
    # every stage file, so each kind of result (lists, refusals, nested dicts) is met; a
    # result the mistake changes fails, naming the type, and one it leaves alone passes
    change, applies, words = STAGE_MISTAKES[mistake]
    files = files_under([CORPUS / "stage"])
    changed = set()
    for path in files:
        for v in read_vectors(path):
            if v["op"] in ELSEWHERE:
                continue
            try:
                out = run(v["op"], v["stage"]["in"], v["stage"]["modes"])
            except StageRefusal:
                continue
            if applies is not None and applies(out):
                changed.add(v["id"])
    results = {r.vid: r for r in validate(ReturningStage(change), files) if r.status != "skip"}
    assert len(results) > 100 and (changed or applies is None)
    assert all(
        r.status == "fail" and words in r.reason for k, r in results.items() if k in changed
    ), [r.reason for k, r in results.items() if k in changed][:3]
    assert all(r.status == "pass" for k, r in results.items() if k not in changed), [
        (k, r.reason) for k, r in results.items() if k not in changed and r.status != "pass"
    ][:3]


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.uint32, np.int8])
def test_integer_arrays_stay_int64_exactly_while_they_fit_i32(dtype):
    from waiexport.reference.stage._ints import ints

    info = np.iinfo(dtype)
    inside = np.array([max(info.min, -(2**31)), min(info.max, 2**31 - 1)], dtype=dtype)
    got = ints(inside)
    assert got.dtype == np.int64 and got.tolist() == [int(v) for v in inside]
    if info.max >= 2**31:  # one past i32: Python integers, every value kept
        past = np.array([0, 2**31], dtype=dtype)
        assert ints(past).dtype == object and ints(past).tolist() == [0, 2**31]
    if info.min < -(2**31):
        past = np.array([-(2**31) - 1, 5], dtype=dtype)
        assert ints(past).dtype == object and ints(past).tolist() == [-(2**31) - 1, 5]
    assert ints(np.zeros(0, dtype)).dtype == np.int64
