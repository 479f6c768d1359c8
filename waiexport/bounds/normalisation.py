"""Bound rules of ``igdn``, ``layernorm_c``, ``l2norm``, ``softmax``, ``sigmoid`` and ``elu``,
with the fixed ``exp_neg_q16`` intervals and lemmas L1 and L2 (§8.3)."""

from __future__ import annotations

from .interval import Iv, Sat, hull
from .result import Result, Rules

RULES = Rules()
Q16 = 1 << 16
RSQ_NUM = (1 << 32, 1 << 32)


def exp_rule(sat: Sat, u: Iv) -> dict:
    """The ``exp_neg_q16`` intermediates from the interval of ``u = −x``."""
    return {
        "exp.negx": u,
        "exp.nl": (sat.mul(45426, sat.fdiv(u[0], 45426)), sat.mul(45426, sat.fdiv(u[1], 45426))),
        "exp.t2": (43245 * 43245, 88670 * 88670),
        "exp.c": (0, 23495 * ((88670 * 88670) >> 16)),
    }


@RULES.rule("igdn")
def igdn(op, ins, ctx) -> Result:
    """``igdn.x2``; per ``(i, j)`` the corner hull ``gx2_ij`` and the floored ``term_ij``;
    ``igdn.N = A({term_ij}, β_i)``; ``igdn.r`` from the final norm ``Nf_i`` (a left fold from
    ``β_i``), not from ``igdn.N``; ``igdn.xr`` the corner hull of ``[l, h]`` and ``r_i``."""
    p, sat, (l, h) = op.params, ctx.sat, ins[0]
    sq = (sat.mul(l, l), sat.mul(h, h))
    x2 = (0, max(sq)) if l <= 0 <= h else (min(sq), max(sq))
    c = p.gamma.shape[0]
    gx2s, terms, ns, rs, xrs, outs = [], [], [], [], [], []
    for i in range(c):
        row = []
        for j in range(c):
            g = int(p.gamma[i, j])
            gx2 = sat.corner((g, g), x2)
            gx2s.append(gx2)
            row.append(sat.shifted(gx2, p.gf))
        terms += row
        beta = int(p.beta[i])
        ns.append(
            (
                sat.fold(min(0, beta), (min(0, t[0]) for t in row)),
                sat.fold(max(0, beta), (max(0, t[1]) for t in row)),
            )
        )
        nf = (sat.fold(beta, (t[0] for t in row)), sat.fold(beta, (t[1] for t in row)))
        r = (sat.isqrt(max(0, nf[0])), sat.isqrt(max(0, nf[1])))
        rs.append(r)
        xr = sat.corner((l, h), r)
        xrs.append(xr)
        outs.append(sat.shifted(xr, p.frac))
    term = hull(*terms)
    inter = {
        "igdn.x2": x2,
        "igdn.gx2": hull(*gx2s),
        "igdn.term": term,
        "igdn.N": hull(*ns),
        "igdn.r": hull(*rs),
        "igdn.xr": hull(*xrs),
    }
    return Result(inter, [hull(*outs)], k_c=term)


@RULES.rule("layernorm_c")
def layernorm_c(op, ins, ctx) -> Result:
    """The closed forms of §8.3 with ``r0 = isqrt(ε)``; ``ln.n`` by lemma L1."""
    p, sat, (l, h) = op.params, ctx.sat, ins[0]
    c = p.gamma.shape[0]
    span = sat.sub(h, l)
    sq = sat.mul(span, span)
    r0 = sat.isqrt(p.eps)
    kmax = sat.fdiv(1 << 32, r0)
    root_c = sat.isqrt_ceil(c)
    d = min(sat.mul(span, kmax), sat.cdiv(sat.mul(sat.mul(root_c, 1 << 32), r0 + 1), r0))
    n_max = sat.add(sat.fdiv(sat.mul(sat.mul(root_c, Q16), r0 + 1), r0), 1)
    n = min(sat.add(sat.fdiv(sat.mul(span, kmax), Q16), 1), n_max)
    ngs, outs = [], []
    for ch in range(c):
        g = int(p.gamma[ch])
        ng = sat.corner((-n, n), (g, g))
        ngs.append(ng)
        outs.append(sat.plus(sat.shifted(ng, 16), int(p.beta[ch])))
    inter = {
        "ln.S": (sat.mul(c, min(0, l)), sat.mul(c, max(0, h))),
        "ln.m": (sat.sub(sat.mul(c, l), c // 2), sat.add(sat.mul(c, h), c // 2)),
        "ln.d": (sat.sub(l, h), span),
        "ln.T": (0, sat.mul(c, sq)),
        "ln.v": (p.eps, sat.add(sq, p.eps)),
        "rsq.num": RSQ_NUM,
        "ln.k": (0, kmax),
        "ln.dk": (-d, d),
        "ln.n": (-n, n),
        "ln.ng": hull(*ngs),
    }
    return Result(inter, [hull(*outs)])


@RULES.rule("l2norm")
def l2norm(op, ins, ctx) -> Result:
    """``l2.T = [0, L·X² + ε]``; ``l2.k = [0, ⌊2^32 / isqrt(ε)⌋]``; ``l2.vk = [−2^32, 2^32]``
    and the result ``[−2^16, 2^16]`` by lemma L2."""
    p, sat, (l, h) = op.params, ctx.sat, ins[0]
    _, hh, ww = ctx.shapes[op.inputs[0]]
    x = max(abs(l), abs(h))
    inter = {
        "l2.T": (0, sat.add(sat.mul(hh * ww, sat.mul(x, x)), p.eps)),
        "rsq.num": RSQ_NUM,
        "l2.k": (0, sat.fdiv(1 << 32, sat.isqrt(p.eps))),
        "l2.vk": (-(1 << 32), 1 << 32),
    }
    return Result(inter, [(-Q16, Q16)])


@RULES.rule("softmax")
def softmax(op, ins, ctx) -> Result:
    """``sm.diff = [l − h, 0]``, ``u = [0, h − l]``; ``sm.sum`` and ``sm.num`` from ``W_max``."""
    sat, (l, h) = ctx.sat, ins[0]
    w_max = ctx.shapes[op.inputs[0]][2]
    total = sat.mul(w_max, 65553)
    inter = {
        "sm.diff": (sat.sub(l, h), 0),
        **exp_rule(sat, (0, sat.sub(h, l))),
        "sm.sum": (0, total),
        "sm.num": (0, sat.add(65553 * Q16, sat.fdiv(total, 2))),
    }
    return Result(inter, [(0, Q16)])


@RULES.rule("sigmoid")
def sigmoid(op, ins, ctx) -> Result:
    """``u`` is the image of ``[l, h]`` under ``|·|``; ``sig.num = [0, 65553·2^16]``."""
    sat = ctx.sat
    inter = {**exp_rule(sat, sat.abs_image(ins[0])), "sig.num": (0, 65553 * Q16)}
    return Result(inter, [(0, Q16)])


@RULES.rule("elu")
def elu(op, ins, ctx) -> Result:
    """``u = [max(0, −h), max(0, −l)]``; ``elu.p`` the corner hull of ``[α, α]`` and
    ``[−2^16, 17]``; the result the hull of ``[max(l, 1), h]`` (``h > 0``) and
    ``[⌊p_lo / 2^16⌋, ⌊p_hi / 2^16⌋]`` (``l ≤ 0``)."""
    sat, (l, h), a = ctx.sat, ins[0], op.params.alpha
    p = sat.corner((a, a), (-Q16, 17))
    parts = []
    if h > 0:
        parts.append((max(l, 1), h))
    if l <= 0:
        parts.append(sat.shifted(p, 16))
    u = (max(0, sat.sat(-h)), max(0, sat.sat(-l)))
    return Result({**exp_rule(sat, u), "elu.p": p}, [hull(*parts)])
