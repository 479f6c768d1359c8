"""``lut16`` (§5.6): a 65,536-entry table lookup."""

import numpy as np

from waiexport.params import Lut16
from waiexport.refusal import Refusal

from . import Inputs, OpCtx, Outputs


def run(p: Lut16, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out = T[v + 32768]``. The load check of §5.6 keeps ``v`` in ``[−32767, 32767]``; a
    value outside the table is refused rather than wrapped."""
    (v,) = ins
    if v.size and (int(v.min()) < -32768 or int(v.max()) > 32767):
        raise Refusal("model_mismatch", "lut16", "input outside the table's [-32768, 32767]")
    return [p.table[np.asarray(v, dtype=np.int64) + 32768]]
