"""Graph vectors of each lowering of §13 on a small set (§14.2)."""

import tempfile
from pathlib import Path

import numpy as np

from waiexport.capabilities.examples import int_synth_source, jpegai_bundle
from waiexport.capabilities.int_synth import lower_int_synth
from waiexport.capabilities.jpegai import lower_jpegai

from ._make import Case, covers


@covers("g:lowering:int_synth")
def lowering_int_synth_small():
    # Two stride-2 k5 p2 op1 layers, 3 → 2 → 3 channels, relu between (§13.1).
    g = lower_int_synth(int_synth_source((3, 2, 3), seed=5))
    rng = np.random.default_rng(5)
    return Case(g, [([rng.integers(-128, 128, (3, 2, 3))], []), ([np.full((3, 1, 1), 127)], [])])


def _bundle():
    with tempfile.TemporaryDirectory() as tmp:
        jpegai_bundle(Path(tmp), c1=2, c2=2, seed=3)
        return lower_jpegai(Path(tmp))


@covers("g:lowering:jpegai")
def lowering_jpegai_hs_y():
    rng = np.random.default_rng(6)
    return Case(_bundle()["hs_y"], [([rng.integers(-31, 33, (160, 4, 4))], [])])


@covers("g:lowering:jpegai")
def lowering_jpegai_hs_uv():
    return Case(_bundle()["hs_uv"], [([np.full((96, 4, 4), 32)], [])])


CASES = [lowering_int_synth_small, lowering_jpegai_hs_y, lowering_jpegai_hs_uv]
