"""The requantisation epilogue ``rq`` (§5.1), vectorised over output channels (axis 0)."""

import numpy as np

from waiexport.params import RQ

from .arrays import add, mul, rround

__all__ = ["rq", "per_channel"]


def per_channel(values: np.ndarray, kind: int):
    """One value (kind 1) or one per channel (kind 2), shaped to broadcast over ``[C, H, W]``."""
    return values.reshape(-1, 1, 1) if kind == 2 else values[0]


def rq(v: np.ndarray, p: RQ, rounding=rround) -> np.ndarray:
    """§5.1 ``rq_o(v)``: ``t = v + pre bias``, ``p = t·mult``, ``q = R_round(p, shift)``
    (by ``rounding``, the operator context's), ``y = q + post bias``, each exact; channel
    ``o`` is ``v[o]``."""
    bias = p.bias.reshape(-1, 1, 1)
    t = add(v, bias) if p.bias_kind == "pre" else v
    prod = mul(t, per_channel(p.mult, p.m_kind)) if p.m_kind else t
    q = rounding(prod, per_channel(p.shift, p.s_kind), p.round)
    return add(q, bias) if p.bias_kind == "post" else q
