"""The benchmark graphs the issue names, shared by the benchmarks that time them."""

import tempfile
from pathlib import Path

import numpy as np

from waiexport.builder import GraphBuilder, conv, conv_transpose, rq

#: Multiply-accumulates of each graph.
STACK_MACS = sum(64 * 64 * 16 * s * s for s in (32, 64, 128))
CONV_MACS = 64 * 64 * 9 * 128 * 128


def transpose_stack(rng: np.random.Generator):
    """Three stride-2 ``conv_transpose`` k4 p1 layers, 64 channels, 32×32 → 256×256."""
    b = GraphBuilder()
    t = b.input(64, -128, 127)
    for _ in range(3):
        t = b.op(
            "conv_transpose",
            t,
            conv_transpose(rng.integers(-16, 16, (64, 64, 4, 4)), stride=2, pad=1, rq=rq(shift=10)),
            policy="clamp",
            lo=-128,
            hi=127,
        )
    b.output(t)
    return b.build()


def conv_64(rng: np.random.Generator):
    """A ``conv`` 3×3 64→64 with padding 1."""
    b = GraphBuilder()
    b.output(
        b.op(
            "conv",
            b.input(64, -128, 127),
            conv(rng.integers(-128, 128, (64, 64, 3, 3)), pad=1, rq=rq(shift=8)),
        )
    )
    return b.build()


def int_synth_full():
    """The realistic ``int_synth`` set's graph, as ``waiexport examples make --full`` writes
    it: three ``conv_transpose`` k5 s2, 192→128→64→3."""
    from waiexport.capabilities.examples import int_synth_source
    from waiexport.capabilities.lower import lower_set

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "int_synth.json"
        path.write_bytes(int_synth_source())
        return lower_set("int_synth", path)[0]["synth"]


def jpegai_full():
    """The realistic ``wai.image.jpegai`` bundle's graphs by role (``hs_y``, ``hs_uv``; 128
    channels), as ``waiexport examples make --full`` writes them."""
    from waiexport.capabilities.examples import jpegai_bundle
    from waiexport.capabilities.lower import lower_set

    with tempfile.TemporaryDirectory() as d:
        jpegai_bundle(Path(d), 128, 128)
        return lower_set("jpegai", Path(d))[0]
