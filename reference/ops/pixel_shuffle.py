"""``pixel_shuffle`` (§5.10): depth to space, channel ``c·r² + i·r + j`` to offset ``(i, j)``."""

from waiexport.params import Factor

from . import Inputs, OpCtx, Outputs


def run(p: Factor, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][h·r + i][w·r + j] = in[c·r² + i·r + j][h][w]``."""
    (x,) = ins
    c, h, w = x.shape
    r = p.r
    return [
        x.reshape(c // (r * r), r, r, h, w)
        .transpose(0, 3, 1, 4, 2)
        .reshape(c // (r * r), h * r, w * r)
    ]
