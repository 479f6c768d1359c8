"""``pad_rep`` (§5.10): bottom and right to a multiple of ``m`` by replication, the amount
computed from the run-time size. ``Pad`` in ``edge`` mode where the target pads by
replication; elsewhere a ``Gather`` of each axis at the clamped indices ``min(i, n − 1)``
for ``i`` below the padded size (§9.4), which never makes a tensor of size 0 (TVM 0.27
refuses one)."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    m = e.const([op.params.m], I64)

    def short(d):
        return e.node("Mod", [e.node("Sub", [m, e.node("Mod", [d, m], fmod=0)]), m], fmod=0)

    h, w = e.hw(ins[0])
    if ctx.target is None or "replicate" in ctx.target.padding:
        pads = e.node("Concat", [e.const([0] * 6, I64), short(h), short(w)], axis=0)
        return [e.node("Pad", [ins[0], pads], mode="edge")]
    y = ins[0]
    for axis, d in ((2, h), (3, w)):
        size = e.node("Squeeze", [e.node("Add", [d, short(d)]), e.const([0], I64)])
        last = e.node("Sub", [d, e.const([1], I64)])
        idx = e.node("Min", [e.node("Range", [e.const(0, I64), size, e.const(1, I64)]), last])
        y = e.node("Gather", [y, idx], axis=axis)
    return [y]
