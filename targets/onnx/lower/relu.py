"""``relu`` (§5.5): ``Max(x, 0)``."""

from ..emit import I64


def lower(e, op, ins, ctx):
    zero = e.const(0, e.storage)
    if e.storage == I64:   # onnxruntime 1.24's int64 Max(x, 0) is 0 on [2^31, 2^32), measured
        return [e.node("Where", [e.node("Greater", [ins[0], zero]), ins[0], zero])]
    return [e.node("Max", [ins[0], zero])]
