"""A requantisation (§5.1) as QDQ scales: ``R((acc + pre)·m / 2^s)`` is the NPU's rounding of
the float sum ``Σ x·(w·sw) + pre·sw`` quantized at ``sy``, with ``sw·(1/sy) = m / 2^s``. Exact
scales put a power of two in each (the multiplier ``m = 2^k`` folded into the exponent); a
generic QDQ export writes ``m`` into ``sw`` as one float32, as quantisation tools do."""

from __future__ import annotations

from waiexport.params import RQ

from ...errors import DoesNotFit

__all__ = ["requant_scales"]


def _exponent(m: int, s: int, options) -> int:
    """``s − log2(m)``, the exponent of the scale ``2^−e`` that ``m / 2^s`` is, for a
    power-of-two ``m``; :class:`DoesNotFit` with the reason for another, or past the
    exponents measured exact."""
    if m <= 0 or m & (m - 1):
        raise DoesNotFit(
            f"a multiplier of {m}, not a power of two: the NPU's requantisation of any "
            "other is off by one near ties (measured)"
        )
    e = s - (m.bit_length() - 1)
    lo, hi = options.exponents
    if not lo <= e <= hi:
        raise DoesNotFit(
            f"a scale of 2^{-e}: the NPU's exact scales are 2^{-hi} to 2^{-lo} (measured)"
        )
    return e


def requant_scales(rq: RQ, channels: int, result, options) -> tuple[list[float], float]:
    """The weight scale of each channel and the output scale whose ratio is each channel's
    ``m / 2^s``, for ``rq`` with the certified intermediates ``result``; :class:`DoesNotFit`
    naming what the target's options rule out (a rounding other than half_up, a post bias, a
    multiplier that is not a power of two, an accumulator past the limit, per-channel scales
    beside a bias)."""
    if rq.round != "half_up":
        raise DoesNotFit(f"a {rq.round} requantisation: the NPU rounds ties toward +∞ (half_up)")
    if rq.bias_kind == "post":
        raise DoesNotFit("a post bias: the NPU adds its bias before the requantisation")
    mults, shifts = rq.mults(channels), rq.shifts(channels)
    if not options.exact:
        top = max(shifts)
        return [float(m * 2 ** (top - s)) for m, s in zip(mults, shifts)], float(2**top)
    t = result.intermediates.get("rq.t") if result is not None else None
    if t is not None and max(-t[0], t[1]) >= options.acc_limit:
        raise DoesNotFit(
            f"an accumulator of up to {max(-t[0], t[1]):,}, past "
            f"2^{options.acc_limit.bit_length() - 1}: the NPU rounds its ties "
            "wrong there (measured)"
        )
    exps = [_exponent(m, s, options) for m, s in zip(mults, shifts)]
    top = max(exps)
    if len(set(exps)) > 1 and rq.bias_kind == "pre" and not options.per_channel_bias:
        raise DoesNotFit(
            "per-channel scales beside a bias: the NPU rounds them off by one on some "
            "outputs (measured)"
        )
    return [float(2 ** (top - e)) for e in exps], float(2**top)
