"""``concat`` (§5.10): CONCAT on the channel axis, the inputs in one type (int32)."""

from ..build import I32


def lower(b, op, ins, ctx):
    xs = [b.cast(x, I32) for x in ins]
    return [b.op("CONCAT", xs, ctx.nhwc(op.outputs[0]), I32, None, 3)]
