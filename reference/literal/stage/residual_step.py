"""E9, literally (the defining form, not the identity)."""

from ._common import refuse_unless


def run(inp, modes):
    pred, r, q, lo, hi = inp["pred"], inp["r"], inp["q"], inp["lo"], inp["hi"]
    refuse_unless(lo < hi, "lo < hi")
    refuse_unless(lo <= pred <= hi, "pred")
    refuse_unless(1 <= q <= 65535, "q")
    refuse_unless(-(2**31) <= r <= 2**31 - 1, "r")
    return {"value": min(max(pred + r * q, lo), hi)}
