"""``l2norm`` (§5.7), acc64: per channel, ``T = Σ v²`` and ``U = T + ε`` wide (each square a
wide product, each limb summed over the positions by an int64 ``MatMul``), ``k =
rsqrt_q16(U)``, then ``⌊v·k / 2^16⌋`` through a wide product (``l2.vk`` is class ``wide``)."""

from waiexport.graph import Op

from ...lowering import Names
from .. import wide as W
from ..emit import Emitter
from ._common import LowerCtx, narrow, wide
from ._q16 import ones_like_axis, rsqrt_q16


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    v = wide(e, ins[0])
    flat = e.reshape(v, [1, ctx.graph.tensor(op.inputs[0]).channels, -1])  # [1, C, H·W]
    ones = ones_like_axis(e, flat, 2)
    sums = W.summed(e, W.product(e, flat, flat), lambda limb: e.node("MatMul", [limb, ones]))
    u = W.add(e, sums, W.from_const(e, op.params.eps))
    k = e.reshape(rsqrt_q16(e, u), [1, -1, 1, 1])
    return [narrow(e, W.narrow(e, W.floor_shift(e, W.product(e, v, k), 16)))]
