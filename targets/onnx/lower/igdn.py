"""``igdn`` (§5.7): ``N_i = β_i + Σ_j ⌊γ[i][j]·x_j² / 2^gf⌋`` with each term floored before
the sum (int64 products, an exact floor shift, the sum over ``j`` as a ``MatMul`` by ones or by
halves, never ``ReduceSum``), ``r_i = isqrt(max(0, N_i))`` bit by bit (one step per bit of the
certified bound of ``r``: ``r`` grows by ``2^b`` while its square stays at most ``N``), then
``⌊x_i·r_i / 2^frac⌋``. Under acc64, where an intermediate passes 64 bits or ``r`` may pass
2^31 (so a trial square could pass int64), every step is formed wide (:mod:`..wide`)."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from .. import wide as W
from ..emit import I64, Emitter
from ..mac.elementwise import halves
from ..requant import floor_shift, square
from ._common import LowerCtx, narrow, wide
from ._q16 import isqrt

_WIDE = ("igdn.x2", "igdn.gx2", "igdn.term", "igdn.N", "igdn.xr")


def _wide(e, p, c: int, x: str, r_hi: int) -> str:
    """The whole operator on wide values; ``r`` stays int64 (class ``acc``)."""
    x2 = [e.node("Unsqueeze", [limb, e.const([1], I64)]) for limb in W.product(e, x, x)]
    terms = W.floor_shift(e, W.times(e, x2, p.gamma.reshape(1, c, c, 1, 1)), p.gf)
    ones = e.const(np.ones((c, 1)), I64, "ones")
    n = W.summed(
        e,
        terms,
        lambda limb: e.node(
            "Squeeze",
            [
                e.node("MatMul", [e.node("Transpose", [limb], perm=[0, 1, 3, 4, 2]), ones]),
                e.const([4], I64),
            ],
        ),
    )
    n = W.add(e, n, W.from_consts(e, p.beta.reshape(1, c, 1, 1)))
    n = W.select(e, e.node("Less", [n[-1], e.const(0, I64)]), W.from_const(e, 0), n)
    r = e.node("Mul", [x, e.const(0, I64)])
    for bit in reversed(range(max(r_hi, 1).bit_length())):
        step = e.node("Add", [r, e.const(1 << bit, I64)])
        left = W.add(e, n, W.negate(e, W.product(e, step, step)))
        r = e.node("Where", [e.node("GreaterOrEqual", [left[-1], e.const(0, I64)]), step, r])
    return W.narrow(e, W.floor_shift(e, W.product(e, x, r), p.frac))


def _summed(e: Emitter, terms: str, c: int) -> str:
    """The sum over ``j`` of ``terms`` (``[1, C, C, H, W]``, int64) as ``[1, C, H, W]``: a
    ``MatMul`` by ones, or a tree of ``Slice`` halves and ``Add`` where the runtime's int64
    ``MatMul`` is not exact (tract panics on one)."""
    if e.exact("MatMul", I64):
        moved = e.node("Transpose", [terms], perm=[0, 1, 3, 4, 2])  # [1, C, H, W, C]
        n = e.node("MatMul", [moved, e.const(np.ones((c, 1)), I64, "ones")])
        return e.node("Squeeze", [n, e.const([4], I64)])
    return e.node("Squeeze", [halves(e, terms, c), e.const([2], I64)])


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p = op.params
    c = ctx.graph.tensor(op.inputs[0]).channels
    x = wide(e, ins[0])
    found = ctx.nodes[op.index].intermediates
    _, r_hi = found["igdn.r"]
    if e.storage == I64 and (
        r_hi >= 1 << 31
        or any(lo < -(1 << 63) or hi >= 1 << 63 for lo, hi in (found[k] for k in _WIDE))
    ):
        return [narrow(e, _wide(e, p, c, x, int(r_hi)))]
    x2 = e.node("Unsqueeze", [square(e, x), e.const([1], I64)])  # [1, 1, C, H, W]
    terms = e.node("Mul", [x2, e.const(p.gamma.reshape(1, c, c, 1, 1), I64, "gamma")])
    terms = floor_shift(e, terms, [p.gf])  # [1, C, C, H, W]
    n = _summed(e, terms, c)
    n = e.node("Add", [n, e.const(p.beta.reshape(1, c, 1, 1), I64, "beta")])
    n = e.node("Where", [e.node("Greater", [n, e.const(0, I64)]), n, e.const(0, I64)])
    r = isqrt(e, n, max(int(r_hi), 1).bit_length())
    return [narrow(e, floor_shift(e, e.node("Mul", [x, r]), [p.frac]))]
