"""A ``post`` bias becomes a ``pre`` bias (§9.4)."""

from __future__ import annotations

from .base import Rewrite, rq_channels, set_rq, with_rq

__all__ = ["PostToPreBias"]

_I64 = (-(1 << 63), (1 << 63) - 1)


class PostToPreBias(Rewrite):
    """Replaces a ``post`` bias ``b`` by a ``pre`` bias ``b·2^s / m``.

    Applies when the rounding is ``floor`` or ``half_up``, or ``half_even`` with every ``b``
    even, every ``m ≠ 0`` divides ``b·2^s``, and the new bias fits i64. Exact because
    ``R(t·m, s) + b = R(t·m + b·2^s, s)`` under those roundings (§9.4), and
    ``t·m + b·2^s = (t + b·2^s/m)·m``.
    """

    name = "post bias → pre bias"
    key = "post_bias"
    ops = ("conv", "conv_transpose", "rescale")

    def needed(self, op, target) -> bool:
        return op.params.rq.bias_kind == "post" and not target.post_bias

    def _biases(self, op, g) -> list[int] | str:
        rq, c = op.params.rq, rq_channels(op, g)
        mults, shifts = rq.mults(c), rq.shifts(c)
        out = []
        for o in range(c):
            b, m, s = int(rq.bias[o]), mults[o], shifts[o]
            if rq.round == "half_even" and b % 2:
                return f"channel {o}: odd post bias {b} under half_even changes the tie's parity"
            if m == 0 or (b << s) % m:
                return f"channel {o}: multiplier {m} does not divide b·2^s = {b << s}"
            if not _I64[0] <= (b << s) // m <= _I64[1]:
                return f"channel {o}: the pre bias {(b << s) // m} does not fit i64"
            out.append((b << s) // m)
        return out

    def check(self, op, g, target) -> str | None:
        biases = self._biases(op, g)
        return biases if isinstance(biases, str) else None

    def apply(self, op, g, target) -> None:
        set_rq(g, op, with_rq(op.params.rq, bias=self._biases(op, g), bias_kind="pre"))
