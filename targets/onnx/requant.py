"""The requantisation epilogue (§5.1) in ONNX integer operators, exact for every rounding,
both bias placements and every shift ``acc32`` allows (0..63), on ``int64`` values.

A floor shift is ``(p − (p mod d)) / d`` with ``Mod`` a floor modulo and ``d = 2^s``: the
division is exact, so ``Div``'s truncation never shows. A shift past 62 (whose ``2^s`` has no
int64) is two such steps; ``p mod 2^s`` is rebuilt from both remainders, and still fits.
Nothing wraps.
"""

from __future__ import annotations

import numpy as np

from .emit import BOOL, I64, Emitter

__all__ = ["floor_shift", "requantise", "rq_args", "channel_const"]


def channel_const(e: Emitter, values, hint: str) -> str:
    """Per-channel values as an int64 ``[1, C, 1, 1]`` constant (a scalar when all agree)."""
    values = [int(v) for v in np.ravel(values)]
    if len(set(values)) == 1:
        return e.const(values[0], I64, hint)
    return e.const(np.array(values).reshape(1, -1, 1, 1), I64, hint)


def floor_shift(e: Emitter, p: str, shifts: list[int]) -> tuple[str, str]:
    """``(⌊p / 2^s⌋, p mod 2^s)`` for per-channel shifts ``s ∈ 0..63``."""
    first = channel_const(e, [1 << min(s, 62) for s in shifts], "pow2")
    r = e.node("Mod", [p, first], fmod=0)
    q = e.node("Div", [e.node("Sub", [p, r]), first])
    if max(shifts) <= 62:
        return q, r
    second = channel_const(e, [1 << max(s - 62, 0) for s in shifts], "pow2")
    r2 = e.node("Mod", [q, second], fmod=0)
    q = e.node("Div", [e.node("Sub", [q, r2]), second])
    return q, e.node("Add", [r, e.node("Mul", [r2, first])])


def _round(e: Emitter, p: str, shifts: list[int], mode: str) -> str:
    if mode == "floor":
        return floor_shift(e, p, shifts)[0]
    half = channel_const(e, [(1 << (s - 1)) if s else 0 for s in shifts], "half")
    if mode == "half_up":
        return floor_shift(e, e.node("Add", [p, half]), shifts)[0]
    q, r = floor_shift(e, p, shifts)
    odd = e.node("Equal", [e.node("Mod", [q, e.const(2, I64)], fmod=0), e.const(1, I64)])
    tie = e.node("And", [e.node("Equal", [r, half]), odd])
    up = e.node("Or", [e.node("Greater", [r, half]), tie])
    up = e.node("And", [up, e.const(np.array([s > 0 for s in shifts]).reshape(1, -1, 1, 1)
                                    if len(set(shifts)) > 1 else shifts[0] > 0, BOOL)])
    return e.node("Add", [q, e.cast(up, I64)])


def requantise(e: Emitter, v: str, *, round: str, shifts: list[int], mult=None, pre=None,
               post=None) -> str:
    """``y = R_round((v + pre)·mult, shifts) + post`` (§5.1) on an int64 tensor ``v``:
    ``mult`` a per-channel list or a tensor name, ``pre``/``post`` per-channel lists."""
    if pre is not None:
        v = e.node("Add", [v, channel_const(e, pre, "bias")])
    if mult is not None:
        v = e.node("Mul", [v, mult if isinstance(mult, str) else channel_const(e, mult, "mult")])
    q = _round(e, v, shifts, round)
    return q if post is None else e.node("Add", [q, channel_const(e, post, "bias")])


def rq_args(rq, channels: int) -> dict:
    """An ``RQ`` block as :func:`requantise`'s keywords, one value per channel."""
    bias = [int(b) for b in rq.bias]
    return dict(round=rq.round, shifts=rq.shifts(channels),
                mult=rq.mults(channels) if rq.m_kind else None,
                pre=bias if rq.bias_kind == "pre" else None,
                post=bias if rq.bias_kind == "post" else None)
