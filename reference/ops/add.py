"""``add`` (§5.5): the elementwise sum."""

from waiexport.params import NoParams

from ..arrays import add
from . import Inputs, OpCtx, Outputs


def run(p: NoParams, ins: Inputs, ctx: OpCtx) -> Outputs:
    """``a + b``, exact."""
    return [add(*ins)]
