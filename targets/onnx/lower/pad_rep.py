"""``pad_rep`` (§5.10): ``Pad`` in ``edge`` mode, bottom and right, to a multiple of ``m``
computed from the run-time size."""

from ..emit import I64


def lower(e, op, ins, ctx):
    m = e.const([op.params.m], I64)

    def short(d):
        return e.node("Mod", [e.node("Sub", [m, e.node("Mod", [d, m], fmod=0)]), m], fmod=0)
    h, w = e.hw(ins[0])
    zeros = e.const([0] * 6, I64)
    pads = e.node("Concat", [zeros, short(h), short(w)], axis=0)
    return [e.node("Pad", [ins[0], pads], mode="edge")]
