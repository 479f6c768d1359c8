"""Bound rules of the requantisation epilogue and the operators built on it (§8.3): ``rq.p``,
``rq.q``, ``rq.y``; ``rescale``, ``chscale``, ``mul``, ``gram``, ``apply``."""

from __future__ import annotations

import numpy as np

from .interval import Iv, Sat, hull
from .result import Result, Rules, mac

__all__ = ["rq_rules", "round_sat", "MANY"]

RULES = Rules()


def round_sat(sat: Sat, p: int, s: int, mode: str) -> int:
    """§2 ``R_mode(p, s)`` evaluated as §2 writes it, each primitive saturated (§8.1)."""
    if mode == "floor":
        return sat.fdiv(p, 1 << s)
    if s == 0:
        return p
    if mode == "half_up":
        return sat.fdiv(sat.add(p, 1 << (s - 1)), 1 << s)
    q = sat.fdiv(p, 1 << s)
    r = sat.sub(p, sat.mul(q, 1 << s))
    h = 1 << (s - 1)
    return sat.add(q, 1) if r > h or (r == h and q % 2) else q


def _rq_channel(sat: Sat, t: Iv, m: int, s: int, mode: str) -> tuple[Iv, Iv]:
    """``rq.p`` (with the rounding addend) and ``rq.q`` for one channel and multiplier."""
    pl, ph = sorted((sat.mul(t[0], m), sat.mul(t[1], m)))
    a = (1 << (s - 1)) if mode != "floor" and s >= 1 else 0
    return (pl, sat.add(ph, a)), (round_sat(sat, pl, s, mode), round_sat(sat, ph, s, mode))


def rq_rules(sat: Sat, ts: list[Iv], rq) -> tuple[dict, Iv]:
    """The ``rq`` rules over channels whose ``rq.t`` is ``ts[o]`` (one entry for all channels
    when ``len(ts) == 1``): the hulls of ``rq.t``, ``rq.p``, ``rq.q``, ``rq.y``, and the
    producer result (the hull of ``rq.y``). Many channels whose values all fit int64 with
    room are computed at once (:func:`_hulls_i64`), the rest channel by channel."""
    n = max(
        len(ts),
        len(rq.mult) if rq.m_kind == 2 else 1,
        len(rq.shift),
        len(rq.bias) if rq.bias_kind == "post" else 1,
    )
    p, q, y = _hulls_i64(ts, rq, n) or _hulls(sat, ts, rq, n)
    return {"rq.t": hull(*ts), "rq.p": p, "rq.q": q, "rq.y": y}, y


def _hulls(sat: Sat, ts: list[Iv], rq, n: int) -> tuple[Iv, Iv, Iv]:
    """The hulls of ``rq.p``, ``rq.q`` and ``rq.y`` over ``n`` channels, one at a time."""
    p_all, q_all, y_all = [], [], []
    for o in range(n):
        t = ts[o if len(ts) > 1 else 0]
        p, q = _rq_channel(sat, t, rq.mult_of(o), rq.shift_of(o), rq.round)
        b = rq.post_bias(o)
        p_all.append(p)
        q_all.append(q)
        y_all.append((sat.add(q[0], b), sat.add(q[1], b)))
    return hull(*p_all), hull(*q_all), hull(*y_all)


#: The fewest channels the requantisation rules and the partial sums (:mod:`.linear`) run
#: for at once in int64: below, channel by channel is as fast.
MANY = 16


def _hulls_i64(ts: list[Iv], rq, n: int) -> tuple[Iv, Iv, Iv] | None:
    """:func:`_hulls` computed for every channel at once in int64, where there are at least
    :data:`MANY` channels and every product ``t·m`` plus its rounding addend and every
    ``q + b`` stays below ``2^62`` in magnitude: no value then nears ``2^255``, so ``sat``
    changes none (§8.1) and the same integers come out. ``None`` elsewhere."""
    if n < MANY:
        return None
    m = np.ones(1, np.int64) if rq.m_kind == 0 else rq.mult if rq.m_kind == 2 else rq.mult[:1]
    b = rq.bias if rq.bias_kind == "post" else np.zeros(1, np.int64)
    s = rq.shift if rq.s_kind == 2 else rq.shift[:1]
    per_channel = [
        v
        for v, each in (
            (ts, len(ts) > 1),
            (m, rq.m_kind == 2),
            (b, rq.bias_kind == "post"),
            (s, rq.s_kind == 2),
        )
        if each
    ]
    if any(len(v) != n for v in per_channel) or not 0 <= int(s.min()) <= int(s.max()) < 62:
        return None
    t_top = max(max(-lo, hi) for lo, hi in ts)
    top = t_top * max(-int(m.min()), int(m.max()))
    if t_top >= 1 << 62 or top + (1 << int(s.max())) + max(-int(b.min()), int(b.max())) >= 1 << 62:
        return None
    t = np.array(ts, dtype=np.int64).reshape(-1, 2)
    p_lo, p_hi = np.minimum(t[:, 0] * m, t[:, 1] * m), np.maximum(t[:, 0] * m, t[:, 1] * m)
    half = np.where(s >= 1, np.left_shift(1, np.maximum(s, 1) - 1), 0)
    q_lo, q_hi = _round_i64(p_lo, s, half, rq.round), _round_i64(p_hi, s, half, rq.round)
    lift = 0 if rq.round == "floor" else half
    return (
        (int(p_lo.min()), int((p_hi + lift).max())),
        (int(q_lo.min()), int(q_hi.max())),
        (int((q_lo + b).min()), int((q_hi + b).max())),
    )


def _round_i64(p: np.ndarray, s: np.ndarray, half: np.ndarray, mode: str) -> np.ndarray:
    """§2 ``R_mode(p, s)`` on int64 arrays (``half = 2^(s−1)``, 0 where ``s = 0``): an
    arithmetic shift is the floor of a division by ``2^s``."""
    if mode == "half_up":
        return (p + half) >> s
    q = p >> s
    if mode == "floor":
        return q
    r = p - (q << s)
    return np.where((s >= 1) & ((r > half) | ((r == half) & (q % 2 == 1))), q + 1, q)


@RULES.rule("rescale")
def rescale(op, ins, ctx) -> Result:
    """``rq.t = [l + b_pre[c], h + b_pre[c]]``, then the ``rq`` rules."""
    rq = op.params.rq
    n = len(rq.bias) if rq.bias_kind == "pre" else 1
    ts = [ctx.sat.plus(ins[0], rq.pre_bias(c)) for c in range(n)]
    inter, y = rq_rules(ctx.sat, ts, rq)
    return Result(inter, [y])


@RULES.rule("chscale")
def chscale(op, ins, ctx) -> Result:
    """Per channel, ``rq.p`` and ``rq.q`` are hulls over the rows the scalar's range allows;
    ``rq.y = rq.q``."""
    p, sat = op.params, ctx.sat
    scalar = ctx.scalars[p.scalar]
    rows = range(scalar.lo, scalar.hi + 1)
    ps, qs = [], []
    for c in range(p.table.shape[1]):
        for r in rows:
            pp, qq = _rq_channel(sat, ins[0], int(p.table[r, c]), p.shift, p.round)
            ps.append(pp)
            qs.append(qq)
    q = hull(*qs)
    inter = {"rq.t": ins[0], "rq.p": hull(*ps), "rq.q": q, "rq.y": q}
    return Result(inter, [q], mac=mac(ins, (int(p.table.min()), int(p.table.max()))))


@RULES.rule("mul")
def mul(op, ins, ctx) -> Result:
    """``mul.p`` is the corner hull of ``a`` and ``b``; ``rq.t = mul.p``; then ``rq``."""
    mp = ctx.sat.corner(ins[0], ins[1])
    inter, y = rq_rules(ctx.sat, [mp], op.params.rq)
    return Result({"mul.p": mp, **inter}, [y], mac=mac(ins))


def _contraction(prefix: str, op, ins, ctx, length: int) -> Result:
    sat = ctx.sat
    term = sat.corner(ins[0], ins[1])
    acc = (sat.mul(length, min(0, term[0])), sat.mul(length, max(0, term[1])))
    inter, y = rq_rules(sat, [acc], op.params.rq)
    return Result(
        {f"{prefix}.term": term, f"{prefix}.acc": acc, **inter}, [y], k_c=term, mac=mac(ins)
    )


@RULES.rule("gram")
def gram(op, ins, ctx) -> Result:
    """``gram.term`` the corner hull of ``A`` and ``B``; ``gram.acc = [L·min(0, lo),
    L·max(0, hi)]`` with ``L`` the largest ``H·W`` of the inputs; then ``rq`` with ``m = 1``."""
    _, h, w = ctx.shapes[op.inputs[0]]
    return _contraction("gram", op, ins, ctx, h * w)


@RULES.rule("apply")
def apply(op, ins, ctx) -> Result:
    """``apply.term`` the corner hull of ``A`` and ``V``; ``apply.acc = [d·min(0, lo),
    d·max(0, hi)]``; then ``rq`` with ``m = 1``."""
    return _contraction("apply", op, ins, ctx, ctx.channels(op.inputs[1]) // op.params.groups)
