"""One lowering per ``wai-ops/1`` operator, by name: ``lower(emitter, op, inputs, ctx) →
outputs``, every graph tensor an int32 ``[1, C, H, W]`` (acc32: the ``wai-ops/1-i32``
operators, §9.1) or an int64 one (acc64: all of them, ``softmax``, ``sigmoid``, ``elu``,
``layernorm_c`` and ``l2norm`` among them, with 128-bit values where §7.1 needs them)."""

from . import (abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop,
               crop_to, elu, fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul, pad_rep,
               pixel_shuffle, pixel_unshuffle, relu, rescale, sigmoid, softmax, split,
               subpos_merge, subpos_split)
from waiexport.optable import OPS

from ._common import DoesNotFit, ExportError, LowerCtx, clip

__all__ = ["LOWER", "LowerCtx", "ExportError", "DoesNotFit", "clip", "WIDE"]

LOWER = {module.__name__.rsplit(".", 1)[1]: module.lower for module in (
    abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to,
    elu, fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul, pad_rep, pixel_shuffle,
    pixel_unshuffle, relu, rescale, sigmoid, softmax, split, subpos_merge, subpos_split)}

#: The intermediates whose values the lowerings form as 128-bit values (:mod:`..wide`)
#: where their certified intervals pass 64 bits: every ``wide`` or ``product`` one (§7.1,
#: the operator table's ``wide`` column); any other past 64 bits is not lowered.
WIDE = {name for op in OPS for name in op.wide}
