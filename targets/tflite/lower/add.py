"""``add`` (§5.5): ``ADD`` on int8 at scale 1. Its kernel rescales each operand by 2^20 and one
half (left shift 20, multiplier 0.5: exact), adds, and scales the sum back by 2^-19: the sum
of two int8 values is a multiple of 2^19 there, so no rounding happens (measured exact on every
path, tests/targets/test_tflite.py)."""

from waiexport.graph import Op

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx, int8_out


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    y = int8_out(b, ctx, op)
    options = b.S.AddOptionsT()
    b.op("ADD", [int(x) for x in ins], [y], options, "AddOptions")
    return [str(y)]
