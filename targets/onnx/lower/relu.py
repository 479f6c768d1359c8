"""``relu`` (§5.5): ``Max(x, 0)``, on the input's NHWC twin too where it has one."""

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ._common import LowerCtx


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    y = _relu(e, ins[0])
    if ins[0] in e.nhwc:  # elementwise: the twin's relu is the relu's twin
        e.nhwc[y] = _relu(e, e.nhwc[ins[0]])
    return [y]


def _relu(e, x: str) -> str:
    zero = e.const(0, e.storage)
    if e.storage == I64:  # onnxruntime 1.24's int64 Max(x, 0) is 0 on [2^31, 2^32), measured
        return e.node("Where", [e.node("Greater", [x, zero]), x, zero])
    return e.node("Max", [x, zero])
