"""E2 ``dequantize(sym, f, base) = sym·2^f + base`` (§5E): Python integers (the 128-bit
form), checked against i64; every refusal is ``field_range`` at 0 (§14.1)."""

from __future__ import annotations

from . import StageRefusal

__all__ = ["dequantize", "run"]

_I64 = 1 << 63


def dequantize(sym: int, f: int, base: int) -> int:
    """``sym·2^f + base``; ``f`` in ``0..62`` and the value in i64, else ``field_range``."""
    if not 0 <= f <= 62:
        raise StageRefusal("field_range", 0, f"f = {f} is not in 0..62")
    value = (sym << f) + base
    if not -_I64 <= value < _I64:
        raise StageRefusal("field_range", 0, f"the value {value} does not fit i64")
    return value


def run(inp: dict, modes: dict) -> dict:
    return {"value": dequantize(inp["sym"], inp["f"], inp["base"])}
