"""``crop`` (§5.10) with constant operands (the only ones in ``wai-ops/1-npu``): a ``Slice``."""

from ._common import ExportError


def lower(e, op, ins, ctx):
    p = op.params
    if any(o.kind for o in (p.y0, p.x0, p.h, p.w)):
        raise ExportError("a crop with a scalar operand is outside wai-ops/1-npu")
    return [e.slice(ins[0], [p.y0.value, p.x0.value],
                    [p.y0.value + p.h.value, p.x0.value + p.w.value], [2, 3])]
