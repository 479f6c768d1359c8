"""``layernorm_c`` (§5.7), acc64, at each position over its ``C`` channel values, every
``wide`` intermediate as a wide value (:mod:`..wide`): ``S`` summed limb by limb over the
channels (an int64 ``MatMul``), ``m = trunc((S + ⌊C/2⌋·sgn(S)) / C)`` by long division,
``T = Σ d_c²``, ``V = ⌊T / C⌋``, ``U = V + ε``, ``k = rsqrt_q16(U)``, then the two Q16
products, each wide before its floor shift."""

import numpy as np

from waiexport.graph import Op

from ...lowering import Names
from .. import wide as W
from ..emit import I64, Emitter
from ._common import LowerCtx, narrow, wide
from ._q16 import rsqrt_q16


def _over_channels(e, c: int):
    """``total(limb)``: a limb ``[1, C, H, W]`` summed over the channels, ``[1, 1, H, W]``."""
    ones = e.const(np.ones((1, c)), I64, "ones")

    def total(limb):
        moved = e.node("Transpose", [limb], perm=[0, 2, 1, 3])  # [1, H, C, W]
        return e.node("Transpose", [e.node("MatMul", [ones, moved])], perm=[0, 2, 1, 3])

    return total


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p, c = op.params, ctx.graph.tensor(op.inputs[0]).channels
    x = wide(e, ins[0])
    total = _over_channels(e, c)
    s = W.summed(e, W.from_i64(e, x), total)
    zero = W.from_const(e, 0)
    negative = e.node("Less", [s[-1], e.const(0, I64)])
    positive = e.node("And", [e.node("Not", [negative]), e.node("Not", [W.equal(e, s, zero)])])
    half = c // 2
    m_wide = W.select(
        e, negative, W.add_small(e, s, -half), W.select(e, positive, W.add_small(e, s, half), s)
    )
    q, rem = W.floor_divide(e, m_wide, c)
    inexact = e.node(
        "And",
        [e.node("Less", [m_wide[-1], e.const(0, I64)]), e.node("Greater", [rem, e.const(0, I64)])],
    )
    m = e.node("Add", [W.narrow(e, q), e.cast(inexact, I64)])  # trunc, not floor
    d = e.node("Sub", [x, m])
    t = W.summed(e, W.product(e, d, d), total)
    u = W.add(e, W.floor_divide(e, t, c)[0], W.from_const(e, p.eps))
    k = rsqrt_q16(e, u)
    n = W.narrow(e, W.floor_shift(e, W.product(e, d, k), 16))
    out = W.narrow(e, W.floor_shift(e, W.product(e, n, [int(g) for g in p.gamma]), 16))
    return [narrow(e, e.node("Add", [out, e.const(p.beta.reshape(1, -1, 1, 1), I64, "beta")]))]
