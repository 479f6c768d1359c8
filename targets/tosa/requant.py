"""The requantisation epilogue (§5.1) as TOSA's RESCALE with ``SINGLE_ROUND`` and ``scale32``:
``(v·m + 2^(s−1)) >> s``, which is ``R_half_up(v·m, s)`` while ``m ≥ 0``, ``2 ≤ s ≤ 62`` and
``−2^(s−1) ≤ v < 2^(s−1)`` (measured, ``shared/notes/tosa-vela-iree.md``). Each channel's
shift is lifted by the smallest ``k ≥ 0`` that meets those conditions with ``m·2^k`` still an
int32 (§9.4: ``R(t·m, s) = R(t·(m·2^k), s + k)``); a shift above 62 is lowered where ``2^(s−62)``
divides ``m``. A ``post`` bias is an int32 ADD after it. Anything else is refused by name."""

from __future__ import annotations

from ..onnx.lower import ExportError
from .build import I8, I32, TosaBuilder

__all__ = ["requantise", "rescale_unit", "lift"]

_M_MAX = (1 << 31) - 1


def lift(m: int, s: int, lo: int, hi: int) -> tuple[int, int]:
    """``(m′, s′)`` with ``R_half_up(t·m, s) = ((t·m′ + 2^(s′−1)) >> s′)`` for every ``t`` in
    ``[lo, hi]`` inside RESCALE's domain, or ``ExportError`` saying why none exists."""
    if s > 62:
        k = s - 62
        if m % (1 << k):
            raise ExportError(
                f"shift {s} above RESCALE's 62, and 2^{k} does not divide the multiplier {m}"
            )
        m, s = m >> k, 62
    for k in range(max(0, 2 - s), 63 - s):
        half = 1 << (s + k - 1)
        if m << k > _M_MAX:
            break
        if -half <= lo and hi < half:
            return m << k, s + k
    raise ExportError(
        f"RESCALE cannot take multiplier {m} with shift {s} on values in "
        f"[{lo}, {hi}]: no lift keeps the multiplier an int32 and the values "
        "inside [-2^(s-1), 2^(s-1))"
    )


def requantise(
    b: TosaBuilder, v: str, rq, channels: int, t_range: tuple[int, int], pre_done: bool = False
) -> str:
    """``y = R_half_up((v + pre)·mult, shift) + post`` on the int32 tensor ``v``; ``t_range``
    is the certified interval of ``rq.t`` (the value entering RESCALE); ``pre_done`` when
    a ``pre`` bias is already in ``v`` (a convolution's bias operand)."""
    if rq.round != "half_up":
        what = "floor with a multiplier" if rq.round == "floor" and rq.m_kind else rq.round
        raise ExportError(
            f"rounding {what}: RESCALE rounds half up only, and no exact rewrite brought it there"
        )
    shape = b.shape(v)
    bias = [int(x) for x in rq.bias]
    if rq.bias_kind == "pre" and not pre_done and any(bias):
        v = b.op("ADD", [v, per_channel(b, bias, channels)], shape, I32)
    mults, shifts = rq.mults(channels), rq.shifts(channels)
    if rq.m_kind or any(shifts):
        v = rescale_unit(b, v, mults, shifts, t_range)
    if rq.bias_kind == "post" and any(bias):
        v = b.op("ADD", [v, per_channel(b, bias, channels)], shape, I32)
    return v


def rescale_unit(
    b: TosaBuilder, v: str, mults: list[int], shifts: list[int], t_range: tuple[int, int]
) -> str:
    """One per-channel RESCALE ``SINGLE_ROUND`` ``scale32`` of the int32 ``v``: channel ``c``
    becomes ``R_half_up(v·mults[c], shifts[c])``, each pair lifted by :func:`lift`."""
    if any(m < 0 for m in mults):
        raise ExportError("a negative multiplier: RESCALE's scale32 multiplier is non-negative")
    pairs = [lift(m, s, *t_range) for m, s in zip(mults, shifts)]
    return b.op(
        "RESCALE",
        [
            v,
            b.const([m for m, _ in pairs], I32),
            b.const([s for _, s in pairs], I8),
            b.const([0], I32),
            b.const([0], I32),
        ],
        b.shape(v),
        I32,
        None,
        True,
        b.ts.RoundingMode.SINGLE_ROUND,
        True,
        False,
        False,
    )


def per_channel(b: TosaBuilder, values: list[int], channels: int) -> str:
    """One int32 value per channel, broadcast over ``[1, H, W, C]``."""
    try:
        return b.const(
            values if len(values) == channels else values * channels, I32, [1, 1, 1, channels]
        )
    except ValueError:
        raise ExportError(f"a bias past int32 ({max(values, key=abs)})") from None
