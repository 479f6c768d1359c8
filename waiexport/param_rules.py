"""The cross-field rules of §10.4's layouts, one per operator that has one: what no single
field says (a scalar reference in range, a table's length, bounds in order, …)."""

from __future__ import annotations

from .params import (
    Chscale,
    Clamp,
    Contraction,
    Crop,
    Fill,
    LayoutCtx,
    Lut16,
    Mul,
    ParamError,
    Subpos,
)

__all__ = ["chscale", "lut16", "clamp", "crop", "subpos", "fill", "mul", "contraction"]


def _scalar_ref(index: int, ctx: LayoutCtx, what: str) -> None:
    if not 0 <= index < len(ctx.scalars):
        raise ParamError(f"{what} names scalar {index}, but the graph has {len(ctx.scalars)}")


def chscale(p: Chscale, ctx: LayoutCtx) -> None:
    _scalar_ref(p.scalar, ctx, "chscale")
    lo, hi = ctx.scalars[p.scalar].lo, ctx.scalars[p.scalar].hi
    if lo < 0 or hi > p.n_rows - 1:
        raise ParamError(
            f"chscale scalar {p.scalar}'s range [{lo}, {hi}] is not within "
            f"[0, {p.n_rows - 1}] (§5.4)"
        )


def lut16(p: Lut16, ctx: LayoutCtx) -> None:
    if int(p.table[0]) != 0:
        raise ParamError(f"lut16 T[0] = {int(p.table[0])}, must be 0 (§5.6)")


def clamp(p: Clamp, ctx: LayoutCtx) -> None:
    if p.lo > p.hi:
        raise ParamError(f"clamp lo {p.lo} > hi {p.hi}")


def crop(p: Crop, ctx: LayoutCtx) -> None:
    for name in ("y0", "x0", "h", "w"):
        op = getattr(p, name)
        if op.kind not in (0, 1):
            raise ParamError(f"crop {name} kind {op.kind} is not 0 or 1")
        if op.kind == 1:
            _scalar_ref(op.value, ctx, f"crop {name}")


def subpos(p: Subpos, ctx: LayoutCtx) -> None:
    if sorted(p.order) != [0, 1, 2, 3]:
        raise ParamError(f"order {list(p.order)} is not a permutation of 0..3")


def fill(p: Fill, ctx: LayoutCtx) -> None:
    if p.kind not in (0, 1):
        raise ParamError(f"fill kind {p.kind} is not 0 or 1")
    if p.kind == 1:
        _scalar_ref(p.value, ctx, "fill")


def mul(p: Mul, ctx: LayoutCtx) -> None:
    if p.rq.bias_kind != "none":
        raise ParamError("mul's RQ has a bias; §10.4 requires bias = 0")


def contraction(p: Contraction, ctx: LayoutCtx) -> None:
    rq = p.rq
    if rq.m_kind != 0 or rq.bias_kind != "none" or rq.s_kind != 1:
        raise ParamError("gram/apply RQ must have m_kind 0, bias 0 and s_kind 1 (§10.4)")
