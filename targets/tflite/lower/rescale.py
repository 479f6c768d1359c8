"""``rescale`` (§5.4): a 1×1 depthwise convolution of weight 1 whose requantisation is the
``rescale``'s own, lowered as :mod:`.conv` lowers one (its exact form and its limits)."""

from dataclasses import replace

import numpy as np

from waiexport.graph import Op
from waiexport.params import Conv

from ...lowering import Names
from ..build import TfliteBuilder
from ._common import TfliteCtx
from .conv import lower as conv


def lower(b: TfliteBuilder, op: Op, ins: Names, ctx: TfliteCtx) -> Names:
    c = ctx.graph.tensor(op.inputs[0]).channels
    ones = np.ones((c, 1, 1, 1), np.int64)
    p = Conv(
        cout=c,
        kh=1,
        kw=1,
        sh=1,
        sw=1,
        ph=0,
        pw=0,
        groups=c,
        w_bytes=1,
        rq=op.params.rq,
        weights=ones,
    )
    return conv(b, replace(op, params=p), ins, ctx)
