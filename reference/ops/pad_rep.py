"""``pad_rep`` (§5.10): pad bottom and right to a multiple of ``m`` by replicating the edge."""

import numpy as np

from waiexport.params import PadRep

from . import Inputs, OpCtx, Outputs


def run(p: PadRep, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][y][x] = in[c][min(y, H−1)][min(x, W−1)]`` over ``[C, ⌈H/m⌉·m, ⌈W/m⌉·m]``."""
    (x,) = ins
    _, h, w = x.shape
    rows = np.minimum(np.arange(-(-h // p.m) * p.m), h - 1)
    cols = np.minimum(np.arange(-(-w // p.m) * p.m), w - 1)
    return [x[:, rows][:, :, cols]]
