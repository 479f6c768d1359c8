"""``floor`` with no multiplier becomes ``half_up`` with a folded ``pre`` bias (§9.4)."""

from __future__ import annotations

from .base import Rewrite, rq_channels, set_rq, with_rq

__all__ = ["FloorToHalfUp"]


class FloorToHalfUp(Rewrite):
    """Replaces ``floor`` rounding and ``pre`` bias ``b`` by ``half_up`` with ``pre`` bias
    ``b − 2^(s−1)`` (``b`` unchanged where ``s = 0``, where both roundings are the identity).

    Applies to ``conv``, ``conv_transpose`` and ``rescale`` (``mul``'s ``RQ`` has no bias
    slot, §10.4) with no multiplier, no ``post`` bias and a folded bias that fits i64. Exact
    because ``R_floor(t + b, s) = R_half_up(t + b − 2^(s−1), s)`` for ``s ≥ 1`` (§9.4).
    """

    name = "floor → half_up"
    key = "floor_to_half_up"
    ops = ("conv", "conv_transpose", "rescale")

    def needed(self, op, target) -> bool:
        return (
            op.params.rq.round == "floor"
            and "floor" not in target.roundings
            and "half_up" in target.roundings
        )

    def _biases(self, op, g) -> list[int]:
        rq, c = op.params.rq, rq_channels(op, g)
        shifts = rq.shifts(c)
        return [rq.pre_bias(o) - ((1 << (shifts[o] - 1)) if shifts[o] else 0) for o in range(c)]

    def check(self, op, g, target) -> str | None:
        rq = op.params.rq
        if rq.m_kind:
            return "floor with a multiplier has no single-bias half_up form (rq_floor_mult)"
        if rq.bias_kind == "post":
            return "a post bias: move it before rounding first"
        if min(self._biases(op, g)) < -(1 << 63):
            return "the folded bias does not fit i64"
        return None

    def apply(self, op, g, target) -> None:
        set_rq(
            g, op, with_rq(op.params.rq, bias=self._biases(op, g), bias_kind="pre", round="half_up")
        )
