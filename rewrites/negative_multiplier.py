"""A negative multiplier becomes positive, its channel's weights and ``pre`` bias negated (§9.4)."""

from __future__ import annotations

import numpy as np

from waiexport.params import as_array

from .base import Rewrite, set_rq, with_rq

__all__ = ["NegativeMultiplier"]

_WIDER = {1: 2, 2: 4, 4: 8}


class NegativeMultiplier(Rewrite):
    """Replaces channel ``o``'s multiplier ``m < 0`` by ``−m``, with channel ``o``'s weights
    and ``pre`` bias negated; the ``post`` bias is unchanged.

    Applies to ``conv`` and ``conv_transpose`` (``rescale`` and ``mul`` have no weights to
    carry the sign) when ``−m`` and the negated bias fit i64; a weight of ``−2^(8·w_bytes−1)``
    widens ``w_bytes``. Exact because ``(−t)·(−m) = t·m`` and ``t`` is linear in the channel's
    weights and ``pre`` bias (§9.4).
    """

    name = "negative multiplier → positive"
    key = "negative_multiplier"
    ops = ("conv", "conv_transpose")

    def needed(self, op, target) -> bool:
        rq = op.params.rq
        return rq.m_kind != 0 and int(rq.mult.min()) < 0 and not target.mult_signed

    def check(self, op, g, target) -> str | None:
        p = op.params
        if int(p.rq.mult.min()) == -(1 << 63):
            return "multiplier −2^63 has no positive i64"
        if p.rq.bias_kind == "pre" and int(p.rq.bias.min()) == -(1 << 63):
            return "pre bias −2^63 has no negation in i64"
        if p.w_bytes == 8 and int(p.weights.min()) == -(1 << 63):
            return "weight −2^63 has no negation in i64"
        return None

    def apply(self, op, g, target) -> None:
        p = op.params
        c = p.cout
        mults = p.rq.mults(c)
        flip = [m < 0 for m in mults]
        sign = np.where(flip, -1, 1)
        shape = (c, 1, 1, 1) if op.name == "conv" else (1, c, 1, 1)
        weights = as_array(p.weights * sign.reshape(shape))
        w_bytes = p.w_bytes
        if int(weights.max()) >= 1 << (8 * w_bytes - 1):
            w_bytes = _WIDER[w_bytes]
        bias = None
        if p.rq.bias_kind == "pre":
            bias = [-b if f else b for b, f in zip(map(int, p.rq.bias), flip)]
        set_rq(
            g,
            op,
            with_rq(p.rq, mult=[abs(m) for m in mults], bias=bias),
            weights=weights,
            w_bytes=w_bytes,
        )
