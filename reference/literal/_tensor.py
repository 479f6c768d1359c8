"""Scalar-loop helpers for the literal implementation: tensors as object arrays of Python ints."""

import itertools

import numpy as np

__all__ = ["new", "positions", "rq_o", "rounded"]

from ..integer import r_round


def new(c: int, h: int, w: int) -> np.ndarray:
    """A ``[c, h, w]`` tensor of Python integers, all 0."""
    out = np.empty((c, h, w), dtype=object)
    out.fill(0)
    return out


def positions(*sizes: int):
    """Every index tuple over ``sizes``, row-major."""
    return itertools.product(*(range(n) for n in sizes))


def rq_o(v: int, p, o: int, note) -> int:
    """§5.1 ``rq_o(v)``, line by line; ``note`` hears ``rq.t``, ``rq.p`` (and ``p + 2^(s−1)``
    where it is formed), ``rq.q`` and ``rq.y``."""
    t = v + (int(p.bias[o]) if p.bias_kind == "pre" else 0)
    m = 1 if p.m_kind == 0 else int(p.mult[0 if p.m_kind == 1 else o])
    s = int(p.shift[0 if p.s_kind == 1 else o])
    y = rounded(t, m, s, p.round, note) + (int(p.bias[o]) if p.bias_kind == "post" else 0)
    note("rq.y", y)
    return y


def rounded(t: int, m: int, s: int, mode: str, note) -> int:
    """``q = R_mode(t·m, s)``, noting ``rq.t``, ``rq.p`` and ``rq.q``."""
    note("rq.t", t)
    p = t * m
    note("rq.p", p)
    if mode != "floor" and s >= 1:
        note("rq.p", p + 2 ** (s - 1))
    q = r_round(p, s, mode)
    note("rq.q", q)
    return q
