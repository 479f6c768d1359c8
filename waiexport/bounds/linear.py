"""Bound rules of ``conv`` and ``conv_transpose`` (§8.2, §8.3): term hulls and partial-sum
intervals from a few sums per output channel (per residue for ``conv_transpose``)."""

from __future__ import annotations

import numpy as np

from .interval import LIMIT, Iv, Sat, hull
from .requant import MANY, rq_rules
from .result import Result, Rules, mac

RULES = Rules()


#: Elements of a weight block: a block's sum and its negative part's sum read it from memory
#: once and from the cache once (256 KiB of int64).
_BLOCK = 1 << 15


def _sign_sums(w: np.ndarray, top: int | None = None) -> tuple[list[int], list[int]]:
    """Per row of ``w`` (its first axis; a view is read where it lies, never copied whole),
    the sum of its positive and of its negative entries, exact; ``top`` is ``max |w|`` where
    the caller has it."""
    rows, n, axes = w.shape[0], w[:1].size, tuple(range(1, w.ndim))
    if n == 0:
        return [0] * rows, [0] * rows
    if top is None:
        top = max(-int(w.min()), int(w.max()))
    if n * top >= 1 << 63:
        w = w.astype(object)
        total, neg = w.sum(axis=axes), np.minimum(w, 0).sum(axis=axes)
    else:  # Σw and S⁻ each fit i64, row block by row block
        total, neg = np.empty(rows, np.int64), np.empty(rows, np.int64)
        step = max(1, _BLOCK // n)
        buf = np.empty((min(step, rows), *w.shape[1:]), np.int64)
        for r in range(0, rows, step):
            block = w[r : r + step]
            total[r : r + step] = block.sum(axis=axes)
            neg[r : r + step] = np.minimum(block, 0, out=buf[: len(block)]).sum(axis=axes)
    neg = [int(m) for m in neg]
    return [int(t) - m for t, m in zip(total, neg)], neg  # S⁺ = Σw − S⁻: Python ints


def partial_sums(sat: Sat, iv: Iv, s_pos: int, s_neg: int, b: int, wmax: int) -> Iv:
    """§8.2 ``A(K, b)`` from ``S⁺`` and ``S⁻`` over one input interval ``[l, h]``:
    ``[min(0, b) + min(0, l)·S⁺ + max(0, h)·S⁻, max(0, b) + max(0, h)·S⁺ + min(0, l)·S⁻]``.
    The terms of one end share a sign, so the saturated left fold of §8.1 is ``sat`` of the
    exact end, saturated as well when one term (at most ``max|w|·X``) passes ``2^255``."""
    l, h = min(0, iv[0]), max(0, iv[1])
    if wmax * max(-l, h) > LIMIT:
        sat.hit = True
    return (sat.sat(min(0, b) + l * s_pos + h * s_neg), sat.sat(max(0, b) + h * s_pos + l * s_neg))


def _accs_i64(sums: list, iv: Iv, rq, taps: int, wmax: int) -> list[Iv] | None:
    """:func:`partial_sums` hulled over the groups of ``sums`` (each group's ``S⁺`` and
    ``S⁻`` per output channel), for every channel at once in int64, where there are at least
    :data:`~.requant.MANY` channels and the input's ends, each sum and each end (at most
    ``2·taps·max|w|·max|x|`` plus the bias in magnitude) stay below ``2^62`` (the input's
    ends apart: where every weight is 0 that bound says nothing of them): no value then nears
    ``2^255``, so ``sat`` changes none (§8.1) and the same integers come out. ``None``
    elsewhere."""
    l, h = min(0, iv[0]), max(0, iv[1])
    b = rq.bias if rq.bias_kind == "pre" else np.zeros(1, np.int64)
    if (
        len(sums[0][0]) < MANY
        or max(-l, h) >= 1 << 62
        or 2 * taps * wmax * max(-l, h, 1) + max(-int(b.min()), int(b.max())) >= 1 << 62
    ):
        return None
    pos = np.array([group[0] for group in sums], np.int64)  # groups × channels
    neg = np.array([group[1] for group in sums], np.int64)
    lo = (np.minimum(b, 0) + l * pos + h * neg).min(axis=0)
    hi = (np.maximum(b, 0) + h * pos + l * neg).max(axis=0)
    return list(zip(lo.tolist(), hi.tolist()))


def folded(sat: Sat, iv: Iv, weights, b: int) -> Iv:
    """§8.2 ``A(K, b)`` as written: each tap's term interval, then the two ends folded term
    by term from the bias, saturating after each addition (§8.1)."""
    terms = [sat.corner((int(w), int(w)), iv) for w in weights]
    return (
        sat.fold(min(0, b), (min(0, t[0]) for t in terms)),
        sat.fold(max(0, b), (max(0, t[1]) for t in terms)),
    )


def _linear(prefix: str, groups: list, ins: list, p, ctx) -> Result:
    """``groups``: per group of taps whose partial sums are hulled (one for ``conv``, one per
    residue for ``conv_transpose``), its weights with the output channel first."""
    sat = ctx.sat
    wmin, wmax = p.weight_range
    term = sat.corner((wmin, wmax), ins[0])
    if ctx.literal:
        accs = [
            hull(*(folded(sat, ins[0], g[o].reshape(-1), p.rq.pre_bias(o)) for g in groups))
            for o in range(p.cout)
        ]
    else:
        top = max(-wmin, wmax)
        sums = [_sign_sums(g, top) for g in groups]
        accs = _accs_i64(sums, ins[0], p.rq, max(g[:1].size for g in groups), top) or [
            hull(
                *(
                    partial_sums(sat, ins[0], pos[o], neg[o], p.rq.pre_bias(o), top)
                    for pos, neg in sums
                )
            )
            for o in range(p.cout)
        ]
    inter, y = rq_rules(sat, accs, p.rq)
    return Result(
        {f"{prefix}.term": term, f"{prefix}.acc": hull(*accs), **inter},
        [y],
        k_c=term,
        mac=mac(ins, (wmin, wmax)),
    )


@RULES.rule("conv")
def conv(op, ins, ctx) -> Result:
    """``conv.term`` the hull of the taps' term intervals; ``conv.acc = A(K_o, b_pre[o])``;
    ``rq.t = conv.acc``; then the ``rq`` rules."""
    p = op.params
    return _linear("conv", [p.weights], ins, p, ctx)


@RULES.rule("conv_transpose")
def conv_transpose(op, ins, ctx) -> Result:
    """``convT.acc`` is the hull over residues ``ρ`` of ``A(K_ρ, b_pre[o])``: one output
    position reads the taps of one residue only. A residue at or past the kernel's size has
    no taps, and its ``A`` is the bias alone."""
    p = op.params
    w = p.weights.transpose(1, 0, 2, 3)  # [cout][cin][kh][kw]
    groups = [
        w[:, :, ry :: p.sh, rx :: p.sw]
        for ry in range(min(p.sh, p.kh))
        for rx in range(min(p.sw, p.kw))
    ]
    if p.sh > p.kh or p.sw > p.kw:
        groups.append(np.zeros((p.cout, 0), dtype=np.int64))
    return _linear("convT", groups, ins, p, ctx)
