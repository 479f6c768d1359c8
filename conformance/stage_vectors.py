"""Stage-operator vectors (§14.1): ``{expect, id, in, modes, op}`` per line, every integer a
decimal string. ``make_stage_vector`` computes ``expect`` (or the refusal and its ``at``)
with :mod:`waiexport.reference.stage`, or with the checker's literal operators
(:mod:`waiexport.reference.literal.stage`); ``parse_stage`` reads one line's members back to
Python values after checking the format.
"""

from __future__ import annotations

from waiexport.reference.literal.stage import LITERAL_STAGE as LITERAL
from waiexport.reference.stage import ELSEWHERE, STAGE_OPS, StageRefusal, run

from waiexport.jsonio import BadInput, decimals, parse_int

__all__ = ["make_stage_vector", "parse_stage", "stage_expect"]

#: The kinds of value a stage vector's members hold, once read (:func:`_native`).
INT, INTS, ROWS, TEXT, BOOL = (
    "an integer",
    "a list of integers",
    "a list of lists of integers",
    "text",
    "true or false",
)
TENSOR, SPANS, TABLES = (
    "a tensor {data, shape}",
    "a list of {mask, sigma}",
    "a list of {cdf, offset}",
)

#: Each operator's ``in`` (§14.1's table): its members and their kinds.
IN = {
    "rans64_decode": {"stream": TEXT, "tables": TABLES, "reads": INTS},
    "dequantize": dict.fromkeys(("sym", "f", "base"), INT),
    "bucket": {"sigma": INT, "edges": INTS},
    "coded": {"v": INT, "thr": INT},
    "scale_index": dict.fromkeys(("v", "s", "n"), INT),
    "block_stat": {"x": TENSOR, **dict.fromkeys(("b", "s", "lo", "hi"), INT)},
    "band_lookup": {"v": INT, "edges": INTS, "table": ROWS, "row": INT},
    "mans_decode": {"memory": TEXT, "mode": TEXT},
    "residual_step": dict.fromkeys(("pred", "r", "q", "lo", "hi"), INT),
    "mc_predict": {"frame": TENSOR, **dict.fromkeys(("y", "x", "c", "dy", "dx", "precision"), INT)},
    "up2_predict": {"prev": TENSOR, "d0": INT, "d1": INT},
    "rate_predict": {"prev": TENSOR, **dict.fromkeys(("rate_num", "rate_den", "d0"), INT)},
    "coding_order": {"shape": INTS, "order": TEXT},
}
#: The members of ``in`` that depend on another: ``mans_decode``'s on its mode, and
#: ``coding_order``'s ``anchor``, read for ``checkerboard`` only (absent: false).
MANS = {
    "sgm": {"pmf": ROWS, "bounds": INTS, "spans": SPANS},
    "fac": {"rows": ROWS, "lengths": INTS},
}
OPTIONAL = {"coding_order": {"anchor": BOOL}}
#: The kinds of ``modes``' members (``rans64_decode``'s, and ``bucket``'s ``bucket``).
MODES = {"table": TEXT, "escape": TEXT, "end": TEXT, "bucket": TEXT, "lo": INT, "hi": INT}

#: Per section of a vector, the members whose values are text, not integers.
TEXT_MEMBERS = {
    "in": {k for members in IN.values() for k, kind in members.items() if kind == TEXT},
    "expect": {"refuse"},
    "modes": {k for k, kind in MODES.items() if kind == TEXT},
}


def _int(v) -> bool:
    return type(v) is int  # bool is not int here: type() is exact


def _ints(v) -> bool:
    return isinstance(v, list) and all(map(_int, v))


def _records(v, fields: dict) -> bool:
    """``v`` is a list of objects of exactly ``fields``' members, each passing its test."""
    return isinstance(v, list) and all(
        isinstance(x, dict) and set(x) == set(fields) and all(ok(x[k]) for k, ok in fields.items())
        for x in v
    )


def _tensor(v) -> bool:
    """``{data, shape}``, its data as many as its shape ``[C, H, W]`` holds."""
    return (
        isinstance(v, dict)
        and set(v) == {"data", "shape"}
        and _ints(v["shape"])
        and len(v["shape"]) == 3
        and min(v["shape"]) >= 0
        and _ints(v["data"])
        and len(v["data"]) == v["shape"][0] * v["shape"][1] * v["shape"][2]
    )


#: Whether a value (read by :func:`_native`) is of each kind.
IS = {
    INT: _int,
    INTS: _ints,
    ROWS: lambda v: isinstance(v, list) and all(map(_ints, v)),
    TEXT: lambda v: isinstance(v, str),
    BOOL: lambda v: isinstance(v, bool),
    TENSOR: _tensor,
    SPANS: lambda v: _records(
        v,
        {
            "mask": lambda m: isinstance(m, list) and all(isinstance(b, bool) for b in m),
            "sigma": _ints,
        },
    ),
    TABLES: lambda v: _records(v, {"cdf": _ints, "offset": _int}),
}


#: The most elements a stage vector's result may hold: its own size bounds every other
#: operator's, but a shape or a list of row lengths is a few digits asking for any number.
MAX_ELEMENTS = 1 << 24


def _output_size(op: str, inp: dict) -> int:
    """How many elements the result of ``op`` on ``inp`` (its kinds checked) holds, where a
    few integers fix it (``coding_order``'s shape, ``mans_decode``'s row lengths); 0
    elsewhere."""
    if op == "coding_order" and len(inp["shape"]) == 3:
        c, h, w = (max(n, 0) for n in inp["shape"])
        return c * h * w
    if op == "mans_decode" and inp["mode"] == "fac":
        return sum(max(n, 0) for n in inp["lengths"])
    return 0


def _native(value, where: str, text: set, key: str = ""):
    """A JSON value with its decimal strings as integers (``text`` members stay text)."""
    if isinstance(value, dict):
        return {k: _native(v, f"{where}.{k}", text, k) for k, v in value.items()}
    if isinstance(value, list):
        fast = decimals(value) if value and key not in text else None
        return (
            fast
            if fast is not None
            else [_native(v, f"{where}[{i}]", text, key) for i, v in enumerate(value)]
        )
    if isinstance(value, str) and key not in text:
        return parse_int(value, where)
    if isinstance(value, (str, bool)):
        return value
    raise BadInput(f"{where}: {str(value)[:40]} is neither a decimal string nor a boolean")


def stage_expect(op: str, inp: dict, modes: dict, literal: bool = False) -> dict:
    """``expect`` for one vector: the operator's result, or ``{"at", "refuse"}``."""
    try:
        if literal:
            return LITERAL[op](inp, modes)
        return run(op, inp, modes)
    except StageRefusal as r:
        return {"at": r.at, "refuse": r.code}


def make_stage_vector(
    vid: str, op: str, inp: dict, modes: dict | None = None, literal: bool = False
) -> dict:
    """One stage vector, ``expect`` computed from ``in`` and ``modes``."""
    modes = modes or {}
    return {
        "expect": stage_expect(op, inp, modes, literal),
        "id": vid,
        "in": inp,
        "modes": modes,
        "op": op,
    }


def parse_stage(v: dict, where: str) -> dict:
    """A stage vector's members as Python values (``in``, ``modes``, ``expect``), after
    §14.1's format checks; ``BadInput`` says which member is wrong."""
    if set(v) != {"expect", "id", "in", "modes", "op"} or not isinstance(v["id"], str):
        raise BadInput(
            f"{where}: a stage vector has exactly expect, id (a string), in, modes and op"
        )
    if not isinstance(v["op"], str) or v["op"] not in STAGE_OPS and v["op"] not in ELSEWHERE:
        raise BadInput(f"{where}: op {str(v['op'])[:40]!r} is not a stage operator (section 5E)")
    for key in ("in", "modes", "expect"):
        if not isinstance(v[key], dict):
            raise BadInput(f"{where}: {key} is not an object")
    out = {k: _native(v[k], f"{where} {k}", TEXT_MEMBERS[k]) for k in ("in", "modes", "expect")}
    inp, mode = out["in"], out["in"].get("mode")
    need = IN[v["op"]] | (MANS.get(mode, {}) if isinstance(mode, str) else {})
    if not set(need) <= set(inp):
        raise BadInput(f"{where}: in lacks {', '.join(sorted(set(need) - set(inp)))}")
    kinds = [
        (f"in.{k}", kind, inp[k])
        for k, kind in {**need, **OPTIONAL.get(v["op"], {})}.items()
        if k in inp
    ]
    kinds += [(f"modes.{k}", MODES[k], m) for k, m in out["modes"].items() if k in MODES]
    for name, kind, value in kinds:
        if not IS[kind](value):
            raise BadInput(f"{where}: {name} is not {kind}")
    size = _output_size(v["op"], out["in"])
    if size > MAX_ELEMENTS:
        raise BadInput(
            f"{where}: the result would hold {size} elements, more than a stage "
            f"vector may ask for ({MAX_ELEMENTS})"
        )
    e = out["expect"]
    if "refuse" in e and (
        set(e) != {"at", "refuse"}
        or not isinstance(e["refuse"], str)
        or not isinstance(e["at"], int)
    ):
        raise BadInput(f'{where}: a refused stage vector\'s expect is {{"at", "refuse"}}')
    return {**v, "stage": out}
