"""E2 ``dequantize`` cases: ``f`` at 0, 62 and past it, values at the i64 ends and one past."""

I64 = 1 << 63

CASES = [
    ("dequantize_basic", {"sym": -3, "f": 4, "base": 7}, {}),
    ("dequantize_f_0", {"sym": 5, "f": 0, "base": -5}, {}),
    ("dequantize_f_62", {"sym": 1, "f": 62, "base": 0}, {}),
    ("dequantize_f_62_negative", {"sym": -2, "f": 62, "base": 0}, {}),
    ("dequantize_f_63_refused", {"sym": 0, "f": 63, "base": 0}, {}),
    ("dequantize_f_negative_refused", {"sym": 1, "f": -1, "base": 0}, {}),
    ("dequantize_at_i64_max", {"sym": 1, "f": 62, "base": (1 << 62) - 1}, {}),
    ("dequantize_past_i64_max", {"sym": 1, "f": 62, "base": 1 << 62}, {}),
    ("dequantize_at_i64_min", {"sym": -1, "f": 62, "base": -(1 << 62)}, {}),
    ("dequantize_past_i64_min", {"sym": -1, "f": 62, "base": -(1 << 62) - 1}, {}),
    ("dequantize_large_sym", {"sym": I64, "f": 0, "base": -1}, {}),
]
