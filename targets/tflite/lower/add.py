"""``add`` (§5.5): ``ADD`` at scale 1, both operands and the sum of one type. On int8 its kernel
rescales each operand by 2^20 and one half (left shift 20, multiplier 0.5: exact), adds, and
scales the sum back by 2^-19: the sum of two int8 values is a multiple of 2^19 there, so no
rounding happens; on int16 at equal scales it adds and saturates (measured exact on every
path, tests/targets/test_tflite.py)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, operands


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    xs, y = operands(b, ctx, op, ins)
    b.op("ADD", xs, [y], b.S.AddOptionsT(), "AddOptions")
    return [str(y)]
