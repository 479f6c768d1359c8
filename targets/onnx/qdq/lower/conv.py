"""``conv`` (§5.2), groups 1 or depthwise: a QDQ ``Conv`` of int8 weights whose scales make
the requantisation the NPU's own (:mod:`..scales`), its pre bias an int32 at the weights'
scale."""

import numpy as np

from waiexport.graph import Op

from ....errors import DoesNotFit
from ....lowering import Names
from ...emit import I32
from ..emit import I8, QdqEmitter
from ..scales import requant_scales
from ._common import QdqCtx, out_type


def lower(e: QdqEmitter, op: Op, ins: Names, ctx: QdqCtx) -> Names:
    p, options = op.params, ctx.target.options
    dtype = out_type(ctx, op)
    if options.one_type and e.types[ins[0]] != dtype:
        raise DoesNotFit(
            "its input and output are 8-bit of different signs: the NPU's "
            "convolution is exact only with both of one type (measured)"
        )
    if p.ph >= p.kh or p.pw >= p.kw:
        raise DoesNotFit(
            f"padding {p.ph}x{p.pw} as wide as its {p.kh}x{p.kw} kernel: the HTP computes the "
            "columns it reads from the input alone wrong there (0 where -128 is exact, measured)"
        )
    if int(p.weights.min()) < -128 or int(p.weights.max()) > 127:
        raise DoesNotFit("weights past 8 bits: the NPU's MAC array takes int8 weights")
    sw, sy = requant_scales(p.rq, p.cout, ctx.nodes.get(op.index), options)
    per = len(set(sw)) > 1
    scale = np.asarray(sw) if per else sw[0]
    ins_f = [e.dq(ins[0]), e.dq(e.const(p.weights, I8, "w"), I8, scale, 0 if per else None)]
    if p.rq.bias_kind == "pre":
        ins_f.append(
            e.dq(
                e.const(np.asarray(p.rq.bias, dtype=object), I32, "b"),
                I32,
                scale,
                0 if per else None,
            )
        )
    y = e.node(
        "Conv",
        ins_f,
        kernel_shape=[p.kh, p.kw],
        strides=[p.sh, p.sw],
        pads=[p.ph, p.pw, p.ph, p.pw],
        group=p.groups,
    )
    return [e.q(y, dtype, sy)]
