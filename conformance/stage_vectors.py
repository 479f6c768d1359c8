"""Stage-operator vectors (§14.1): ``{expect, id, in, modes, op}`` per line, every integer a
decimal string. ``make_stage_vector`` computes ``expect`` (or the refusal and its ``at``)
with :mod:`waiexport.reference.stage`, or with the checker's literal operators
(:mod:`waiexport.reference.literal.stage`); ``parse_stage`` reads one line's members back to
Python values after checking the format.
"""

from __future__ import annotations

from waiexport.jsonio import BadInput, decimals, parse_int
from waiexport.reference.stage import ELSEWHERE, STAGE_OPS, StageRefusal, run

__all__ = ["make_stage_vector", "parse_stage", "stage_expect", "TEXT"]

#: Per section of a vector, the members whose values are text, not integers.
TEXT = {"in": {"memory", "stream", "mode", "order"}, "expect": {"refuse"},
        "modes": {"bucket", "table", "escape", "end"}}


#: The members of each operator's ``in`` (§14.1's table; ``anchor`` is read for
#: ``checkerboard`` only, and ``mans_decode``'s depend on its mode).
IN = {"rans64_decode": {"stream", "tables", "reads"}, "dequantize": {"sym", "f", "base"},
      "bucket": {"sigma", "edges"}, "coded": {"v", "thr"}, "scale_index": {"v", "s", "n"},
      "block_stat": {"x", "b", "s", "lo", "hi"}, "band_lookup": {"v", "edges", "table", "row"},
      "mans_decode": {"memory", "mode"}, "residual_step": {"pred", "r", "q", "lo", "hi"},
      "mc_predict": {"frame", "y", "x", "c", "dy", "dx", "precision"},
      "up2_predict": {"prev", "d0", "d1"}, "rate_predict": {"prev", "rate_num", "rate_den", "d0"},
      "coding_order": {"shape", "order"}}
MANS = {"sgm": {"pmf", "bounds", "spans"}, "fac": {"rows", "lengths"}}


#: The most elements a stage vector's result may hold: its own size bounds every other
#: operator's, but a shape or a list of row lengths is a few digits asking for any number.
MAX_ELEMENTS = 1 << 24


def _output_size(op: str, inp: dict) -> int:
    """How many elements the result of ``op`` on ``inp`` holds, where a few integers fix
    it (``coding_order``'s shape, ``mans_decode``'s row lengths); 0 elsewhere."""
    def count(values) -> int:
        ok = isinstance(values, list) and all(isinstance(n, int) and not isinstance(n, bool)
                                              for n in values)
        return sum(max(n, 0) for n in values) if ok else 0
    if op == "coding_order" and isinstance(inp.get("shape"), list) and count(inp["shape"]):
        dims = [max(n, 0) if isinstance(n, int) else 0 for n in inp["shape"]]
        return dims[0] * dims[1] * dims[2] if len(dims) == 3 else 0
    if op == "mans_decode" and inp.get("mode") == "fac":
        return count(inp.get("lengths"))
    return 0


def _native(value, where: str, text: set, key: str = ""):
    """A JSON value with its decimal strings as integers (``text`` members stay text)."""
    if isinstance(value, dict):
        return {k: _native(v, f"{where}.{k}", text, k) for k, v in value.items()}
    if isinstance(value, list):
        fast = decimals(value) if value and key not in text else None
        return fast if fast is not None else [_native(v, f"{where}[{i}]", text, key)
                                              for i, v in enumerate(value)]
    if isinstance(value, str) and key not in text:
        return parse_int(value, where)
    if isinstance(value, (str, bool)):
        return value
    raise BadInput(f"{where}: {str(value)[:40]} is neither a decimal string nor a boolean")


def stage_expect(op: str, inp: dict, modes: dict, literal: bool = False) -> dict:
    """``expect`` for one vector: the operator's result, or ``{"at", "refuse"}``."""
    try:
        if literal:
            from waiexport.reference.literal.stage import LITERAL_STAGE as LITERAL
            return LITERAL[op](inp, modes)
        return run(op, inp, modes)
    except StageRefusal as r:
        return {"at": r.at, "refuse": r.code}


def make_stage_vector(vid: str, op: str, inp: dict, modes: dict | None = None,
                      literal: bool = False) -> dict:
    """One stage vector, ``expect`` computed from ``in`` and ``modes``."""
    modes = modes or {}
    return {"expect": stage_expect(op, inp, modes, literal), "id": vid, "in": inp,
            "modes": modes, "op": op}


def parse_stage(v: dict, where: str) -> dict:
    """A stage vector's members as Python values (``in``, ``modes``, ``expect``), after
    §14.1's format checks; ``BadInput`` says which member is wrong."""
    if set(v) != {"expect", "id", "in", "modes", "op"}:
        raise BadInput(f"{where}: a stage vector has exactly expect, id, in, modes and op")
    if not isinstance(v["op"], str) or v["op"] not in STAGE_OPS and v["op"] not in ELSEWHERE:
        raise BadInput(f"{where}: op {str(v['op'])[:40]!r} is not a stage operator (section 5E)")
    for key in ("in", "modes", "expect"):
        if not isinstance(v[key], dict):
            raise BadInput(f"{where}: {key} is not an object")
    out = {k: _native(v[k], f"{where} {k}", TEXT[k]) for k in ("in", "modes", "expect")}
    mode = out["in"].get("mode")
    need = IN[v["op"]] | (MANS.get(mode, set()) if isinstance(mode, str) else set())
    if not need <= set(out["in"]):
        raise BadInput(f"{where}: in lacks {', '.join(sorted(need - set(out['in'])))}")
    size = _output_size(v["op"], out["in"])
    if size > MAX_ELEMENTS:
        raise BadInput(f"{where}: the result would hold {size} elements, more than a stage "
                       f"vector may ask for ({MAX_ELEMENTS})")
    e = out["expect"]
    if "refuse" in e and (set(e) != {"at", "refuse"} or not isinstance(e["refuse"], str)
                          or not isinstance(e["at"], int)):
        raise BadInput(f"{where}: a refused stage vector's expect is {{\"at\", \"refuse\"}}")
    return {**v, "stage": out}
