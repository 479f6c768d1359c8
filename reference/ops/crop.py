"""``crop`` (§5.10): a window whose start and size are constants or scalars."""

from waiexport.params import Crop

from . import Inputs, OpCtx, Outputs


def run(p: Crop, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][y][x] = in[c][y0 + y][x0 + x]`` over ``h × w``."""
    y0, x0, h, w = (
        o.value if o.kind == 0 else ctx.scalars[o.value] for o in (p.y0, p.x0, p.h, p.w)
    )
    return [ins[0][:, y0 : y0 + h, x0 : x0 + w]]
