"""How long a certificate takes for a set of 10^7 weights, against merely reading the file.

The set: a ``conv`` 3×3 1024→1024 (9.4·10^6 weights) and a ``conv_transpose`` k4 s2 256→256
(1.0·10^6), 8-bit weights. "Read" is ``whg1.read`` (load checks 1–7); "certify" is the bounds
pass and the canonical certificate bytes on top (§8). Goal: within 3× the read.

Then the acc64 fabric's model of the realistic ``int_synth`` set (``examples make --full``)
against the ``ort-cpu`` model of the same set, both on onnxruntime, interleaved.

Run: ``python benchmarks/certify.py``.
"""

from __future__ import annotations

import statistics

import numpy as np

from _timing import interleaved, ratio

from waiexport import read, write
from waiexport.params import Split
from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
from waiexport.certificate import Member, certificate_bytes, certify


def main() -> None:
    rng = np.random.default_rng(0)
    b = GraphBuilder()
    x = b.input(1024, -128, 127, max_h=64, max_w=64)
    h = b.op(
        "conv",
        x,
        conv(
            rng.integers(-128, 128, (1024, 1024, 3, 3)),
            pad=1,
            rq=rq(shift=[12] * 1024, bias=rng.integers(-999, 999, 1024)),
        ),
        policy="clamp",
        lo=-128,
        hi=127,
    )
    h = b.op("split", h, Split(0, 256))
    b.output(
        b.op(
            "conv_transpose",
            h,
            conv_transpose(
                rng.integers(-128, 128, (256, 256, 4, 4)), stride=2, pad=1, rq=rq(shift=10)
            ),
        )
    )
    data = write(b.graph())
    n_weights = 1024 * 1024 * 9 + 256 * 256 * 16
    g = read(data)
    times = interleaved(
        {
            "read": lambda: read(data),
            "certify": lambda: certificate_bytes(certify([Member.of("set", data, g)])),
        },
        7,
    )
    print(
        f"{n_weights / 1e6:.1f}·10^6 weights, {len(data) / 2**20:.1f} MiB: read "
        f"{statistics.median(times['read']):.3f} s, certify "
        f"{statistics.median(times['certify']):.3f} s, certify/read = "
        f"{ratio(times, 'certify', 'read')} interleaved; goal: within 3x"
    )
    fabrics()


def fabrics(rounds: int = 9) -> None:
    """The realistic ``int_synth`` set's decode on ``ort-cpu-acc64`` against ``ort-cpu``."""
    import os
    from _graphs import int_synth_full
    from waiexport.targets.engines import engine

    data = write(int_synth_full())
    loaded = {name: engine(name).load(data) for name in ("ort-cpu", "ort-cpu-acc64")}
    x = np.random.default_rng(1).integers(-128, 128, (192, 16, 16))
    calls = {name: (lambda ld=ld: ld.decode([x], [])) for name, ld in loaded.items()}
    for call in calls.values():
        call()
    times = interleaved(calls, rounds)
    print(
        f"realistic int_synth, latent 16x16, {rounds} rounds interleaved, load "
        f"{os.getloadavg()[0]:.1f}: ort-cpu-acc64 "
        f"{statistics.median(times['ort-cpu-acc64']) * 1e3:.1f} ms, ort-cpu "
        f"{statistics.median(times['ort-cpu']) * 1e3:.1f} ms, acc64/acc32 = "
        f"{ratio(times, 'ort-cpu-acc64', 'ort-cpu')}"
    )


if __name__ == "__main__":
    main()
