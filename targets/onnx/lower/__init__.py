"""One lowering per ``wai-ops/1-i32`` operator (§9.1), by name:
``lower(emitter, op, inputs, ctx) → outputs``, every graph tensor an int32 ``[1, C, H, W]``."""

from . import (abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop,
               crop_to, fill, gram, igdn, leaky, lut16, mul, pad_rep, pixel_shuffle,
               pixel_unshuffle, relu, rescale, split, subpos_merge, subpos_split)
from ._common import DoesNotFit, ExportError, LowerCtx, clip

__all__ = ["LOWER", "LowerCtx", "ExportError", "DoesNotFit", "clip"]

LOWER = {module.__name__.rsplit(".", 1)[1]: module.lower for module in (
    abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to,
    fill, gram, igdn, leaky, lut16, mul, pad_rep, pixel_shuffle, pixel_unshuffle, relu,
    rescale, split, subpos_merge, subpos_split)}
