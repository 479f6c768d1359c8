"""``rescale`` (§5.4), one scale for every channel and no bias: ``DequantizeLinear`` then
``QuantizeLinear`` at the scale that is the requantisation (:mod:`..scales`)."""

from waiexport.graph import Op

from ....errors import DoesNotFit
from ....lowering import Names
from ..emit import QdqEmitter
from ..scales import requant_scales
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    rq = op.params.rq
    c = ctx.graph.tensor(op.inputs[0]).channels
    if rq.bias_kind != "none":
        raise DoesNotFit("a rescale with a bias: no QDQ pattern adds one exactly here")
    sw, sy = requant_scales(rq, c, ctx.nodes.get(op.index), ctx.target.options)
    if len(set(sw)) > 1:
        raise DoesNotFit(
            "a rescale whose channels differ in scale: the NPU's requantisation "
            "of an activation takes one scale"
        )
    return [e.q(e.dq(ins[0], scale=sw[0]), out_type(ctx, op), sy)]
