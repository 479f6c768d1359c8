"""The literal implementation: one function per graph operator (§5), scalar loops that follow
the formulas line by line (the convolution sums as written, the transposed convolution as §5.3
defines it, not its scatter form). Slow by design, for small inputs; independent of the
vectorised reference, which the tests check against it. Same signature as
:data:`waiexport.reference.REFERENCE`.
"""

from . import (abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop,
               crop_to, elu, fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul,
               pad_rep, pixel_shuffle, pixel_unshuffle, relu, rescale, sigmoid, softmax, split,
               subpos_merge, subpos_split)

__all__ = ["LITERAL"]

LITERAL = {module.__name__.rsplit(".", 1)[1]: module.run for module in (
    abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to, elu,
    fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul, pad_rep, pixel_shuffle,
    pixel_unshuffle, relu, rescale, sigmoid, softmax, split, subpos_merge, subpos_split)}
