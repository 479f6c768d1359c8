"""One TOSA lowering per operator it maps, by name:
``lower(builder, op, inputs, ctx) → outputs``; an operator without one is refused by name."""

from . import (abs, add, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to, fill,
               leaky, mul, pixel_shuffle, pixel_unshuffle, relu, rescale, split)

__all__ = ["LOWER"]

LOWER = {module.__name__.rsplit(".", 1)[1]: module.lower for module in (
    abs, add, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to, fill, leaky, mul,
    pixel_shuffle, pixel_unshuffle, relu, rescale, split)}
