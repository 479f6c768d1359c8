"""``pad_rep`` (§5.10): the last row, then the last column, repeated by CONCAT up to the next
multiple of ``m`` (§9.4: replicate padding from slices)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TosaBuilder
from ._common import TosaCtx, slice_of


def _extend(b, x, axis: int, m: int):
    shape = list(b.shape(x))
    extra = -shape[axis] % m
    if not extra:
        return x
    start = [0, 0, 0, 0]
    start[axis] = shape[axis] - 1
    size = list(shape)
    size[axis] = 1
    edge = slice_of(b, x, start, size)
    shape[axis] += extra
    return b.op("CONCAT", [x] + [edge] * extra, shape, b.dtype(x), None, axis)


def lower(b: TosaBuilder, op: Op, ins: Names, ctx: TosaCtx) -> Names:
    return [_extend(b, _extend(b, ins[0], 1, op.params.m), 2, op.params.m)]
