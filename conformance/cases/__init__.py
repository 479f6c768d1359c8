"""The conformance cases: one module per graph operator (§5), ``graphs`` and ``lowerings``
(§14.2), each with ``CASES``, a list of named functions; a function's name is its vector's
id."""

from . import (abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop,
               crop_to, elu, fill, gram, graphs, igdn, l2norm, layernorm_c, leaky, lowerings,
               lut16, mul, pad_rep, pixel_shuffle, pixel_unshuffle, relu, rescale, sigmoid,
               softmax, split, subpos_merge, subpos_split)

__all__ = ["OPERATORS", "GRAPHS"]

#: Per-operator case lists, by operator name (``vectors/<name>.jsonl``).
OPERATORS = {module.__name__.rsplit(".", 1)[1]: module.CASES for module in (
    abs, add, apply, chscale, chunk_add, clamp, concat, conv, conv_transpose, crop, crop_to,
    elu, fill, gram, igdn, l2norm, layernorm_c, leaky, lut16, mul, pad_rep, pixel_shuffle,
    pixel_unshuffle, relu, rescale, sigmoid, softmax, split, subpos_merge, subpos_split)}
#: Graph case lists, by file name (``graphs/<name>.jsonl``).
GRAPHS = {"graphs": graphs.CASES, "lowerings": lowerings.CASES}
