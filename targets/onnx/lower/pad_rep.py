"""``pad_rep`` (§5.10): bottom and right to a multiple of ``m`` by replication, the amount
computed from the run-time size. ``Pad`` in ``edge`` mode where the target pads by
replication; elsewhere built from the last row and column, ``Expand``-ed and concatenated
(§9.4)."""

from ..emit import I64


def lower(e, op, ins, ctx):
    m = e.const([op.params.m], I64)

    def short(d):
        return e.node("Mod", [e.node("Sub", [m, e.node("Mod", [d, m], fmod=0)]), m], fmod=0)
    h, w = e.hw(ins[0])
    if ctx.target is None or "replicate" in ctx.target.padding:
        pads = e.node("Concat", [e.const([0] * 6, I64), short(h), short(w)], axis=0)
        return [e.node("Pad", [ins[0], pads], mode="edge")]
    c = e.dim(ins[0], 1)
    last_row = e.slice(ins[0], [-1], [1 << 62], [2])
    y = e.node("Concat", [ins[0], e.node("Expand", [last_row, e.node(
        "Concat", [e.const([1], I64), c, short(h), w], axis=0)])], axis=2)
    rows = e.dim(y, 2)
    last_col = e.slice(y, [-1], [1 << 62], [3])
    return [e.node("Concat", [y, e.node("Expand", [last_col, e.node(
        "Concat", [e.const([1], I64), c, rows, short(w)], axis=0)])], axis=3)]
