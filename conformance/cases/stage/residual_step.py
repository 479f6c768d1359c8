"""E9 ``residual_step`` cases: ``r = ±R`` and ``±(R + 1)`` on §13.5's ranges, the i32 limits
(where the 32-bit form's width fails and a wider one is needed), and every condition
refused."""

I32 = 1 << 31


def _around_r(name: str, pred: int, q: int, lo: int, hi: int):
    big = (hi - lo) // q + 1
    for r, tag in (
        (big, "R"),
        (-big, "minus_R"),
        (big + 1, "R_plus_1"),
        (-big - 1, "minus_R_plus_1"),
    ):
        yield (
            f"residual_step_{name}_{tag}",
            {"pred": pred, "r": r, "q": q, "lo": lo, "hi": hi},
            {},
        )


CASES = [
    *_around_r("u8", 100, 3, 0, 255),
    *_around_r("i16", -5, 257, -32768, 32767),
    *_around_r("i16_q_max", 32767, 65535, -32768, 32767),
    (
        "residual_step_wide_form_needed",
        {"pred": I32 - 1, "r": 2, "q": 65535, "lo": I32 - 65536, "hi": I32 - 1},
        {},
    ),
    (
        "residual_step_i32_low_end",
        {"pred": -I32, "r": -I32, "q": 65535, "lo": -I32, "hi": -I32 + 10},
        {},
    ),
    ("residual_step_i32_r_ends", {"pred": 0, "r": I32 - 1, "q": 1, "lo": -I32, "hi": I32 - 1}, {}),
    ("residual_step_i32_r_min", {"pred": 0, "r": -I32, "q": 65535, "lo": -I32, "hi": I32 - 1}, {}),
    ("residual_step_inside", {"pred": 10, "r": -3, "q": 2, "lo": 0, "hi": 255}, {}),
    ("residual_step_lo_equals_hi_refused", {"pred": 5, "r": 0, "q": 1, "lo": 5, "hi": 5}, {}),
    ("residual_step_pred_outside_refused", {"pred": 256, "r": 0, "q": 1, "lo": 0, "hi": 255}, {}),
    ("residual_step_q_0_refused", {"pred": 0, "r": 0, "q": 0, "lo": 0, "hi": 255}, {}),
    ("residual_step_q_65536_refused", {"pred": 0, "r": 0, "q": 65536, "lo": 0, "hi": 255}, {}),
    ("residual_step_r_past_i32_refused", {"pred": 0, "r": I32, "q": 1, "lo": 0, "hi": 255}, {}),
]
