"""The exact form of a TFLite convolution's requantisation, shared by ``conv`` and
``conv_transpose``. Every TFLite kernel path requantises in two roundings (gemmlowp's
``SaturatingRoundingDoublingHighMul`` then ``RoundingDivideByPOT``, half away from zero; ruy's
two half-up ones); with a power-of-two scale ``2^−(e+2)`` the first halves its sum, so the sum
is made ``4·acc + 2`` (weights times 4, bias ``4·b + 2``): the first stage is then exact and
the second rounds ``(2·acc + 1) / 2^(e+1)``, which is never a tie for ``e ≥ 1``, to
``R_half_up(acc / 2^e)`` (shared notes, npu-runtimes). A channel of ``e = 0`` (no rounding)
is ``2·acc`` at ``2^−1``: the first stage gives ``acc``, the second nothing."""

from __future__ import annotations

import numpy as np

from waiexport.graph import Op

from ...errors import DoesNotFit
from ._common import TfliteCtx

__all__ = ["exact_form"]


def _exponents(rq, channels: int) -> list[int]:
    """Each channel's ``e`` with ``m / 2^s = 2^−e``; :class:`DoesNotFit` for a rounding other
    than half_up, a post bias, a multiplier that is no power of two, or ``e < 0``."""
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
    if min(out) < 0 or max(out) > 28:
        raise DoesNotFit(f"a scale of 2^{-min(out)}: the exact form takes 2^0 to 2^-28")
    return out


def exact_form(op: Op, ctx: TfliteCtx, axis: int) -> tuple:
    """``op``'s weights scaled for the exact form (each output channel's times 2 or 4, the
    output channel on ``axis``), its int32 bias and each channel's weight scale;
    :class:`DoesNotFit` for weights past 6 bits, a sum past 2^28 or a requantisation the
    form cannot take."""
    p = op.params
    if int(np.abs(p.weights).max()) > 31:
        raise DoesNotFit("weights past 6 bits: the exact form takes 4·w in int8")
    t = ctx.nodes[op.index].intermediates["rq.t"]
    if max(-t[0], t[1]) >= 1 << 28:
        raise DoesNotFit("a sum past 2^28: the exact form's 4·acc + 2 passes int32")
    exps = _exponents(p.rq, p.cout)
    times = np.array([2 if e == 0 else 4 for e in exps])
    shape = [1] * np.ndim(p.weights)
    shape[axis] = -1
    w4 = times.reshape(shape) * np.asarray(p.weights, np.int64)
    pre = np.array([p.rq.pre_bias(o) for o in range(p.cout)], np.int64)
    bias = (times * pre + (times == 4) * 2).astype(np.int32)
    scale = [e + (1 if e == 0 else 2) for e in exps]  # each channel's scale is 2^-scale
    return w4, bias, np.array([2.0**-k for k in scale])  # the output keeps scale 1
