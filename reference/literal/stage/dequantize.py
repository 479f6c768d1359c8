"""E2, literally."""

from ._common import StageRefusal


def run(inp, modes):
    sym, f, base = inp["sym"], inp["f"], inp["base"]
    if f > 62 or f < 0:
        raise StageRefusal("field_range", 0, "f")
    value = sym * 2**f + base
    if value < -(2**63) or value > 2**63 - 1:
        raise StageRefusal("field_range", 0, "value")
    return {"value": value}
