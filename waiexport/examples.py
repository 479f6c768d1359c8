"""Small example graphs bundled with the project (``examples/``), made deterministically."""

from __future__ import annotations

import numpy as np

from .builder import GraphBuilder, conv_transpose, rq
from .graph import Graph
from .params import Clamp

__all__ = ["tiny_synth", "EXAMPLES"]


def tiny_synth(seed: int = 1) -> Graph:
    """An ``int_synth``-shaped decoder (§13.1): two stride-2 ``conv_transpose`` layers (k4 p1
    and k5 p2 op1), ``relu`` between, ``clamp(0, 255)`` last; latents ``[8, ≤16, ≤16]``."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    x = b.input(8, -128, 127, max_h=16, max_w=16)
    w1 = rng.integers(-64, 64, size=(8, 6, 4, 4))
    h = b.op("conv_transpose", x, conv_transpose(
        w1, stride=2, pad=1, w_bytes=4,
        rq=rq(shift=6, bias=rng.integers(-512, 512, size=6), b_bytes=4)))
    h = b.op("relu", h)
    w2 = rng.integers(-64, 64, size=(6, 3, 5, 5))
    y = b.op("conv_transpose", h, conv_transpose(
        w2, stride=2, pad=2, out_pad=1, w_bytes=4,
        rq=rq(shift=7, bias=rng.integers(-512, 512, size=3), b_bytes=4)))
    b.output(b.op("clamp", y, Clamp(0, 255)))
    return b.build()


#: The bundled examples, by file name under ``examples/``.
EXAMPLES = {"tiny_synth.whg1": tiny_synth}
