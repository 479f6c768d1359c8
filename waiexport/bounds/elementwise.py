"""Bound rules of the elementwise operators and the table lookup (§8.3)."""

from __future__ import annotations

from .interval import hull
from .result import Result, Rules

RULES = Rules()


@RULES.rule("add")
def add(op, ins, ctx) -> Result:
    """``[la + lb, ha + hb]``."""
    (la, ha), (lb, hb) = ins
    return Result({}, [(ctx.sat.add(la, lb), ctx.sat.add(ha, hb))])


@RULES.rule("chunk_add")
def chunk_add(op, ins, ctx) -> Result:
    """``[2l, 2h]``."""
    return Result({}, [ctx.sat.scaled(ins[0], 2)])


@RULES.rule("clamp")
def clamp(op, ins, ctx) -> Result:
    """``[clamp(l, lo, hi), clamp(h, lo, hi)]``."""
    lo, hi = op.params.lo, op.params.hi
    return Result({}, [tuple(min(max(v, lo), hi) for v in ins[0])])


@RULES.rule("relu")
def relu(op, ins, ctx) -> Result:
    """``[max(l, 0), max(h, 0)]``."""
    return Result({}, [(max(ins[0][0], 0), max(ins[0][1], 0))])


@RULES.rule("abs")
def abs_(op, ins, ctx) -> Result:
    """The image of ``[l, h]`` under ``|·|``."""
    return Result({}, [ctx.sat.abs_image(ins[0])])


@RULES.rule("leaky")
def leaky(op, ins, ctx) -> Result:
    """For ``l < 0``, ``leaky.p`` is the corner hull of ``[l, min(h, −1)]`` and ``[a, a]`` and
    the negative part ``[⌊p_lo / 2^f⌋, ⌊p_hi / 2^f⌋]``; the non-negative part is
    ``[max(l, 0), h]`` when ``h ≥ 0``; the result is the hull of the parts present."""
    (l, h), p, sat = ins[0], op.params, ctx.sat
    parts = []
    if l < 0:
        lp = sat.corner((l, min(h, -1)), (p.a, p.a))
        parts.append(sat.shifted(lp, p.f))
    else:
        lp = (0, 0)
    if h >= 0:
        parts.append((max(l, 0), h))
    return Result({"leaky.p": lp}, [hull(*parts)])


@RULES.rule("lut16")
def lut16(op, ins, ctx) -> Result:
    """``[min, max]`` of ``T[u + 32768]`` over ``u ∈ [l, h]``; the input's range lies within
    ``[−32767, 32767]`` (a load check, :func:`waiexport.bounds.certify_graph`)."""
    l, h = ins[0]
    window = op.params.table[l + 32768 : h + 32769]
    return Result({}, [(int(window.min()), int(window.max()))])
