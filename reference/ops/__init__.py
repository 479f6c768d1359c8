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


OPS = {module.__name__.rsplit(".", 1)[1]: module.run for module in (
    abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to, elu,
    fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul, pad_rep, pixel_shuffle,
    pixel_unshuffle, relu, rescale, sigmoid, softmax, split, subpos_merge, subpos_split)}
