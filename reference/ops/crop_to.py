"""``crop_to`` (§5.10): the top-left corner of ``in``, the size of ``ref``."""

from waiexport.params import NoParams

from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c][y][x] = in[c][y][x]`` over ``ref``'s ``H′ × W′``; only ``ref``'s shape is read."""
    x, ref = ins
    return [x[:, : ref.shape[1], : ref.shape[2]]]
