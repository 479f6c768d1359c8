"""The exact forms of a TFLite convolution's requantisation, shared by ``conv``,
``conv_transpose`` and ``rescale``; each channel's scale ``m / 2^s`` must be ``2^−e``,
rounded half_up with a pre bias (shared notes, npu-runtimes; tests/targets/test_tflite.py).

- **int8** (int8 in and out, weights within ±31, sums below 2^28, ``e ≤ 28``): every TFLite
  kernel path requantises in two roundings (gemmlowp's ``SaturatingRoundingDoublingHighMul``
  then ``RoundingDivideByPOT``, half away from zero; ruy's two half-up ones); with a scale
  ``2^−(e+2)`` the first halves its sum, so the sum is made ``4·acc + 2`` (weights times 4, bias
  ``4·b + 2``): the first stage is then exact and the second rounds ``(2·acc + 1) / 2^(e+1)``,
  never a tie for ``e ≥ 1``, to ``R_half_up(acc / 2^e)``. A channel of ``e = 0`` is ``2·acc``
  at ``2^−1``: the first stage gives ``acc``, the second nothing.
- **16×8** (otherwise: int16 in and out, int8 weights, an int64 bias, sums below 2^47,
  ``e ≤ 32``): the kernels accumulate in int64 and requantise once, ``(acc·2^14 + 2^(13+e))
  >> (14 + e)``, which is ``R_half_up(acc / 2^e)`` itself (with an int32 bias they take
  another path, which is not)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from waiexport.graph import Op

from ...errors import DoesNotFit
from ._common import TfliteCtx

__all__ = ["Form", "exact_form"]


@dataclass(frozen=True)
class Form:
    """A convolution's exact form: its input and output type, its int8 weights (output
    channel on the axis asked for), bias (with its type) and each channel's weight scale."""

    io: str
    weights: np.ndarray
    bias: np.ndarray
    bias_type: str
    scales: np.ndarray


def _exponents(rq, channels: int) -> list[int]:
    """Each channel's ``e`` with ``m / 2^s = 2^−e``; :class:`DoesNotFit` for a rounding other
    than half_up, a post bias, a multiplier that is no power of two, or ``e`` outside 0..32."""
    if rq.round != "half_up" or rq.bias_kind == "post":
        raise DoesNotFit(
            f"a {rq.round} requantisation with a {rq.bias_kind} bias: the exact "
            "form takes half_up with a pre bias"
        )
    out = []
    for m, s in zip(rq.mults(channels), rq.shifts(channels)):
        if m <= 0 or m & (m - 1):
            raise DoesNotFit(
                f"a multiplier of {m}, not a power of two: TFLite's kernels round any other twice"
            )
        out.append(s - (m.bit_length() - 1))
    if min(out) < 0 or max(out) > 32:
        bad = min(out) if min(out) < 0 else max(out)
        raise DoesNotFit(f"a scale of 2^{-bad}: the exact forms take 2^0 to 2^-32")
    return out


def exact_form(op: Op, ctx: TfliteCtx, axis: int, x_type: str) -> Form:
    """``op``'s exact form on an input of type ``x_type``: int8 where it applies, else 16×8;
    :class:`DoesNotFit` for what neither takes."""
    p = op.params
    exps = _exponents(p.rq, p.cout)
    lo, hi = ctx.nodes[op.index].intermediates["rq.t"]
    out_lo, out_hi = ctx.intervals[op.outputs[0]]
    w = np.asarray(p.weights, np.int64)
    pre = np.array([p.rq.pre_bias(o) for o in range(p.cout)], np.int64)
    shape = [1] * w.ndim
    shape[axis] = -1
    narrow = (
        x_type == "INT8"
        and -128 <= out_lo
        and out_hi <= 127
        and int(np.abs(w).max()) <= 31
        and max(-lo, hi) < 1 << 28
        and max(exps) <= 28
    )
    if narrow:
        times = np.array([2 if e == 0 else 4 for e in exps])
        scale = [e + (1 if e == 0 else 2) for e in exps]  # each channel's scale is 2^-scale
        return Form(
            "INT8",
            times.reshape(shape) * w,
            (times * pre + (times == 4) * 2).astype(np.int32),
            "INT32",
            np.array([2.0**-k for k in scale]),
        )
    if int(w.min()) < -128 or int(w.max()) > 127:
        raise DoesNotFit("weights past 8 bits: TFLite's kernels take int8 weights")
    if max(-lo, hi) >= 1 << 47:
        raise DoesNotFit("a sum past 2^47: the 16x8 kernels' requantisation takes less")
    return Form("INT16", w, pre, "INT64", np.array([2.0**-e for e in exps]))
