"""``igdn`` (§5.7): ``N_i = β_i + Σ_j ⌊γ[i][j]·x_j² / 2^gf⌋`` with each term floored before
the sum (int64 products, an exact floor shift, the sum over ``j`` as a ``MatMul`` by ones,
never ``ReduceSum``), ``r_i = isqrt(max(0, N_i))`` bit by bit (one step per bit of the
certified bound of ``r``: ``r`` grows by ``2^b`` while its square stays at most ``N``), then
``⌊x_i·r_i / 2^frac⌋``."""

import numpy as np

from ..emit import I64
from ..requant import floor_shift
from ._common import narrow, wide


def lower(e, op, ins, ctx):
    p = op.params
    c = ctx.graph.tensor(op.inputs[0]).channels
    x = wide(e, ins[0])
    x2 = e.node("Unsqueeze", [e.node("Mul", [x, x]), e.const([1], I64)])      # [1, 1, C, H, W]
    terms = e.node("Mul", [x2, e.const(p.gamma.reshape(1, c, c, 1, 1), I64, "gamma")])
    terms = floor_shift(e, terms, [p.gf])                                    # [1, C, C, H, W]
    moved = e.node("Transpose", [terms], perm=[0, 1, 3, 4, 2])                  # [1, C, H, W, C]
    n = e.node("MatMul", [moved, e.const(np.ones((c, 1)), I64, "ones")])
    n = e.node("Squeeze", [n, e.const([4], I64)])
    n = e.node("Add", [n, e.const(p.beta.reshape(1, c, 1, 1), I64, "beta")])
    n = e.node("Max", [n, e.const(0, I64)])
    _, r_hi = ctx.nodes[op.index].intermediates["igdn.r"]
    r = e.node("Mul", [n, e.const(0, I64)])
    for bit in reversed(range(max(int(r_hi), 1).bit_length())):
        step = e.node("Add", [r, e.const(1 << bit, I64)])
        fits = e.node("LessOrEqual", [e.node("Mul", [step, step]), n])
        r = e.node("Where", [fits, step, r])
    return [narrow(e, floor_shift(e, e.node("Mul", [x, r]), [p.frac]))]
