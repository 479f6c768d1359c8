"""One function per graph operator (§5), by name: ``run(params, inputs, ctx) → outputs``.

Inputs and outputs are ``[C, H, W]`` numpy arrays of exact integers (``int64``, or ``object``
where a value passes i64); ``ctx`` carries this decode's scalar values and the output tensors'
channel counts.
"""

from dataclasses import dataclass
from typing import Callable

from . import (abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop,
               crop_to, elu, fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul,
               pad_rep, pixel_shuffle, pixel_unshuffle, relu, rescale, sigmoid, softmax, split,
               subpos_merge, subpos_split)

__all__ = ["OPS", "Ctx"]


@dataclass(frozen=True)
class Ctx:
    """What an operator reads beyond its inputs and parameters."""

    scalars: tuple
    out_channels: tuple
    note: Callable[[str, int], None] = lambda key, value: None


OPS = {
    "conv": conv.run,
    "rescale": rescale.run,
    "chscale": chscale.run,
    "lut16": lut16.run,
    "add": add.run,
    "concat": concat.run,
    "chunk_add": chunk_add.run,
    "split": split.run,
    "pixel_shuffle": pixel_shuffle.run,
    "pixel_unshuffle": pixel_unshuffle.run,
    "clamp": clamp.run,
    "relu": relu.run,
    "leaky": leaky.run,
    "pad_rep": pad_rep.run,
    "crop_to": crop_to.run,
    "mul": mul.run,
    "conv_transpose": conv_transpose.run,
    "igdn": igdn.run,
    "abs": abs.run,
    "crop": crop.run,
    "subpos_split": subpos_split.run,
    "subpos_merge": subpos_merge.run,
    "fill": fill.run,
    "layernorm_c": layernorm_c.run,
    "l2norm": l2norm.run,
    "softmax": softmax.run,
    "sigmoid": sigmoid.run,
    "elu": elu.run,
    "gram": gram.run,
    "apply": apply.run,
}
