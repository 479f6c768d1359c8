"""E8 ``mans_decode`` cases (§14.1 item 7): streams written by the ``mans`` encoder from
chosen symbols, in both modes, with bounds of 128 and 255 and a row whose escape is taken at
each (short and long escapes); spans and rows of every length mod 4; a zero tail, a short
stream and a stream whose ``init`` cannot read, all refused; and every table and operand
condition refused."""

from waiexport.reference.stage.mans_encode import encode_fac, encode_sgm


def _row(width: int, mass: dict) -> list[int]:
    row = [0] * width
    for k, v in mass.items():
        row[k] = v
    return row


W = 512
PMF = [
    _row(W, {0: 80, 1: 40, 2: 40, 3: 30, 4: 30, 255: 36}),  # bound 128: escape column 255
    _row(W, {0: 120, 1: 60, 2: 40, 509: 36}),  # bound 255: escape column 509
    _row(W, {0: 128, 1: 64, 2: 64}),
]  # bound 0: every 0 escapes
BOUNDS = [128, 255, 0]
SPANS = [
    {
        "mask": [True, True, False, True, True, True, True, False, True, True, True, True],
        "sigma": [0, 1, 2, 0, 1, 0, 2, 1, 0, 1, 2, 0],
        "symbols": [130, 255, 0, -1128, -300, 2, 0, 0, -2, 1, -1, 1],
    },
    {
        "mask": [True] * 7,
        "sigma": [1, 0, 1, 0, 2, 2, 1],
        "symbols": [600, -129, -1, 0, 5, -9, -255],
    },
    {"mask": [True, False], "sigma": [0, 0], "symbols": [128, 0]},
    {"mask": [True], "sigma": [1], "symbols": [256]},
    {"mask": [], "sigma": [], "symbols": []},
    {"mask": [False] * 4, "sigma": [0, 1, 2, 0], "symbols": [0, 0, 0, 0]},
]


def _counts(widths: dict) -> list[int]:
    out, total = [], 0
    for a in range(63):
        total += widths.get(a, 0)
        out.append(total)
    return out


ROWS = [
    _counts({0: 40, 1: 30, 5: 60, 31: 80, 32: 20, 62: 10}),  # 240 of 255 slots
    _counts({a: 4 for a in range(63)}),  # every symbol, 252 slots
    _counts({31: 255}),
    _counts({}),
]  # every symbol escapes
FAC = [
    [31, 0, 1, 5, 63, 32, 62, 40, 31, 31, 0, 5, 7, 63, 31, 32],
    [0, 62, 17, 63, 33, 1, 2],
    [31, 63],
    [12],
]
FAC_ROWS = ROWS


def _sgm(memory: bytes, spans=None, pmf=PMF, bounds=BOUNDS) -> dict:
    spans = SPANS if spans is None else spans
    return {
        "memory": memory.hex(),
        "mode": "sgm",
        "pmf": pmf,
        "bounds": bounds,
        "spans": [{"mask": s["mask"], "sigma": s["sigma"]} for s in spans],
    }


def _fac(memory: bytes, rows=FAC_ROWS, lengths=None) -> dict:
    return {
        "memory": memory.hex(),
        "mode": "fac",
        "rows": rows,
        "lengths": [len(s) for s in FAC] if lengths is None else lengths,
    }


SGM_STREAM = encode_sgm(PMF, BOUNDS, SPANS)
FAC_STREAM = encode_fac(FAC_ROWS, FAC)


def _cuts(name: str, make, stream: bytes):
    """The stream cut short from its start (the bytes read last) by 1, 2, a third and
    half: refused where the window runs past the memory; a cut of bytes whose bits the
    decode reads as the zeros it would find there anyway still decodes."""
    for cut in sorted({1, 2, len(stream) // 3, len(stream) // 2}):
        yield (f"{name}_short_by_{cut}", make(stream[cut:]), {})


CASES = [
    ("mans_sgm_round_trip", _sgm(SGM_STREAM), {}),
    *_cuts("mans_sgm", _sgm, SGM_STREAM),
    ("mans_sgm_zero_tail", _sgm(SGM_STREAM + bytes(8)), {}),
    ("mans_sgm_empty_stream", _sgm(b""), {}),
    ("mans_sgm_init_cannot_read", _sgm(b"\x01"), {}),
    (
        "mans_sgm_one_span_bound_128_escapes",
        _sgm(encode_sgm(PMF, BOUNDS, [SPANS[2]]), [SPANS[2]]),
        {},
    ),
    (
        "mans_sgm_one_span_bound_255_escapes",
        _sgm(encode_sgm(PMF, BOUNDS, [SPANS[3]]), [SPANS[3]]),
        {},
    ),
    ("mans_fac_round_trip", _fac(FAC_STREAM), {}),
    *_cuts("mans_fac", _fac, FAC_STREAM),
    ("mans_fac_zero_tail", _fac(FAC_STREAM + bytes(8)), {}),
    ("mans_fac_no_rows", _fac(encode_fac([], []), rows=[], lengths=[]), {}),
    ("mans_unknown_mode_refused", {**_fac(FAC_STREAM), "mode": "raw"}, {}),
    ("mans_sgm_widths_differ_refused", _sgm(SGM_STREAM, pmf=[PMF[0], PMF[1][:-1], PMF[2]]), {}),
    ("mans_sgm_width_0_refused", _sgm(SGM_STREAM, spans=[], pmf=[[]], bounds=[0]), {}),
    (
        "mans_sgm_sum_255_refused",
        _sgm(SGM_STREAM, pmf=[PMF[0], PMF[1], _row(W, {0: 128, 1: 64, 2: 63})]),
        {},
    ),
    (
        "mans_sgm_negative_mass_refused",
        _sgm(SGM_STREAM, pmf=[PMF[0], PMF[1], _row(W, {0: 129, 1: 64, 2: 64, 3: -1})]),
        {},
    ),
    ("mans_sgm_bound_256_refused", _sgm(SGM_STREAM, bounds=[128, 256, 0]), {}),
    ("mans_sgm_bound_negative_refused", _sgm(SGM_STREAM, bounds=[-1, 255, 0]), {}),
    (
        "mans_sgm_mask_length_refused",
        _sgm(SGM_STREAM, spans=[{"mask": [True], "sigma": [0, 1], "symbols": []}]),
        {},
    ),
    (
        "mans_sgm_sigma_past_rows_refused",
        _sgm(SGM_STREAM, spans=[{"mask": [True], "sigma": [3], "symbols": []}]),
        {},
    ),
    ("mans_sgm_sigma_past_bounds_refused", _sgm(SGM_STREAM, bounds=[128, 255]), {}),
    ("mans_fac_row_of_62_refused", _fac(FAC_STREAM, rows=[ROWS[0][:62]] + FAC_ROWS[1:]), {}),
    (
        "mans_fac_row_decreasing_refused",
        _fac(FAC_STREAM, rows=[ROWS[0][:10] + [0] + ROWS[0][11:]] + FAC_ROWS[1:]),
        {},
    ),
    (
        "mans_fac_row_past_255_refused",
        _fac(FAC_STREAM, rows=[ROWS[0][:62] + [256]] + FAC_ROWS[1:]),
        {},
    ),
    ("mans_fac_lengths_refused", _fac(FAC_STREAM, lengths=[16, 7, 2]), {}),
]
