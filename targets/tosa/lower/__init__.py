"""One TOSA lowering per operator it maps, by name:
``lower(builder, op, inputs, ctx) → outputs``; an operator without one is refused by name."""

from . import (abs, add, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to,
               fill, leaky, lut16, mul, pad_rep, pixel_shuffle, pixel_unshuffle, relu, rescale,
               split, subpos_merge, subpos_split)

__all__ = ["LOWER"]

LOWER = {module.__name__.rsplit(".", 1)[1]: module.lower for module in (
    abs, add, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to, fill, leaky,
    lut16, mul, pad_rep, pixel_shuffle, pixel_unshuffle, relu, rescale, split, subpos_merge,
    subpos_split)}
