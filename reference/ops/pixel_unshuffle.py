"""``pixel_unshuffle`` (§5.10): space to depth, the inverse of ``pixel_shuffle``."""

from waiexport.params import Factor

from . import Inputs, OpCtx, Outputs


def run(p: Factor, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c·r² + i·r + j][h][w] = in[c][h·r + i][w·r + j]``."""
    (x,) = ins
    c, h, w = x.shape
    r = p.r
    return [
        x.reshape(c, h // r, r, w // r, r)
        .transpose(0, 2, 4, 1, 3)
        .reshape(c * r * r, h // r, w // r)
    ]
