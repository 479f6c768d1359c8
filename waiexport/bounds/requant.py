"""Bound rules of the requantisation epilogue and the operators built on it (§8.3): ``rq.p``,
``rq.q``, ``rq.y``; ``rescale``, ``chscale``, ``mul``, ``gram``, ``apply``."""

from __future__ import annotations

from .interval import Iv, Sat, hull
from .result import Result, Rules, mac

__all__ = ["rq_rules", "round_sat"]

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
    producer result (the hull of ``rq.y``)."""
    n = max(len(ts), len(rq.mult) if rq.m_kind == 2 else 1, len(rq.shift),
            len(rq.bias) if rq.bias_kind == "post" else 1)
    p_all, q_all, y_all = [], [], []
    for o in range(n):
        t = ts[o if len(ts) > 1 else 0]
        p, q = _rq_channel(sat, t, rq.mult_of(o), rq.shift_of(o), rq.round)
        b = rq.post_bias(o)
        p_all.append(p)
        q_all.append(q)
        y_all.append((sat.add(q[0], b), sat.add(q[1], b)))
    y = hull(*y_all)
    return {"rq.t": hull(*ts), "rq.p": hull(*p_all), "rq.q": hull(*q_all), "rq.y": y}, y


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
    return Result({f"{prefix}.term": term, f"{prefix}.acc": acc, **inter}, [y],
                  k_c=term, mac=mac(ins))


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
