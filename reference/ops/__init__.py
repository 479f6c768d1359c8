"""One function per graph operator (§5), by name: ``run(params, inputs, ctx) → outputs``.

Inputs and outputs are ``[C, H, W]`` numpy arrays of exact integers (``int64``, or ``object``
where a value passes i64); ``ctx`` carries this decode's scalar values and the output tensors'
channel counts.
"""

from dataclasses import dataclass
from typing import Callable

from ..arrays import rround
from . import (abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop,
               crop_to, elu, fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul,
               pad_rep, pixel_shuffle, pixel_unshuffle, relu, rescale, sigmoid, softmax, split,
               subpos_merge, subpos_split)

__all__ = ["REFERENCE", "OpCtx"]


@dataclass(frozen=True)
class OpCtx:
    """What an operator reads beyond its inputs and parameters: the scalars' values, its
    outputs' channel counts, who hears its named intermediates (the literal implementation),
    and the rounding ``R_mode(p, s)`` of §2 it rounds every scaled product with: the
    reference's own, or a test double's, or a spy's (``--locate`` reads the values it
    rounds)."""

    scalars: tuple
    out_channels: tuple
    note: Callable[[str, int], None] = lambda key, value: None
    rounding: Callable = rround


REFERENCE = {module.__name__.rsplit(".", 1)[1]: module.run for module in (
    abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to, elu,
    fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul, pad_rep, pixel_shuffle,
    pixel_unshuffle, relu, rescale, sigmoid, softmax, split, subpos_merge, subpos_split)}
