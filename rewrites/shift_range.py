"""A shift outside the unit's range moves into it through the multiplier (§9.4)."""

from __future__ import annotations

from .base import Rewrite, rq_channels, set_rq, with_rq

__all__ = ["ShiftRange"]


class ShiftRange(Rewrite):
    """Replaces ``(m, s)`` by ``(m·2^k, s + k)`` for a shift below the unit's range, or by
    ``(m / 2^k, s − k)`` for one above it.

    Applies when ``m·2^k`` fits the unit's multiplier, or ``m`` (1 when absent) is a multiple
    of ``2^k``. Exact because ``R(t·m, s) = R(t·(m·2^k), s + k)`` for every ``k ≥ 0`` and
    every rounding of §2 (§9.4).
    """

    name = "shift rescaling"
    key = "shift_range"
    ops = ("conv", "conv_transpose", "rescale", "mul")

    def needed(self, op, target) -> bool:
        lo, hi = target.shift_range
        rq = op.params.rq
        return int(rq.shift.min()) < lo or int(rq.shift.max()) > hi

    def _moved(self, op, g, target) -> tuple[list, list] | str:
        rq, c = op.params.rq, rq_channels(op, g)
        lo, hi = target.shift_range
        mlo, mhi = target.mult_range
        mults, shifts = rq.mults(c), rq.shifts(c)
        for o in range(c):
            m, s = mults[o], shifts[o]
            if s > hi:
                k = s - hi
                if m % (1 << k):
                    return (
                        f"channel {o}: shift {s} is above {hi} and m = {m} is not a "
                        f"multiple of 2^{k}"
                    )
                mults[o], shifts[o] = m >> k, hi
            elif s < lo:
                k = lo - s
                if not mlo <= m << k <= mhi:
                    return f"channel {o}: m·2^{k} = {m << k} does not fit the unit's multiplier"
                mults[o], shifts[o] = m << k, lo
        return mults, shifts

    def check(self, op, g, target) -> str | None:
        moved = self._moved(op, g, target)
        return moved if isinstance(moved, str) else None

    def apply(self, op, g, target) -> None:
        mults, shifts = self._moved(op, g, target)
        set_rq(g, op, with_rq(op.params.rq, mult=mults, shift=shifts))
