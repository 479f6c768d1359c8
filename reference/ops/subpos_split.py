"""``subpos_split`` (§5.10): the four 2×2 sub-positions, in ``order``."""

from waiexport.params import Subpos

from . import Inputs, OpCtx, Outputs


def run(p: Subpos, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out_k[c][y][x] = in[c][2y + a_k][2x + b_k]`` with ``order[k] = 2a_k + b_k``."""
    (x,) = ins
    return [x[:, k >> 1 :: 2, k & 1 :: 2] for k in p.order]
