"""``lut16`` (§5.6): GATHER from the 65,536-entry int16 table at ``v + 32768`` (measured exact;
TOSA's TABLE int16 interpolates 513 entries, so it is not this)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import I16, I32, TosaBuilder
from ._common import TosaCtx


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    shape = ctx.nhwc(op.inputs[0])
    n = shape[1] * shape[2] * shape[3]
    x = b.cast(ins[0], I32)
    index = b.op("ADD", [x, b.const([32768], I32, [1, 1, 1, 1])], shape, I32)
    index = b.op("RESHAPE", [index, b.shape_of([1, n])], (1, n), I32)
    table = b.const(op.params.table.reshape(1, 65536, 1), I16)
    got = b.op("GATHER", [table, index], (1, n, 1), I16)
    return [b.op("RESHAPE", [got, b.shape_of(list(shape))], shape, I16)]
