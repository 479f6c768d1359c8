"""``split`` (§5.10): a run of channels."""

from waiexport.params import Split

from . import Inputs, OpCtx, Outputs


def run(p: Split, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``out[c] = in[start + c]``."""
    return [ins[0][p.start : p.start + p.count]]
