"""One graph on onnxruntime (the ``ort-cpu`` export), on the TOSA reference model and on IREE
(the ``tosa`` export, engines ``tosa-ref`` and ``iree-cpu``), timed interleaved in one process
(A B C A B C), each decode through the engine as ``validate`` runs it: medians, and each
engine's median ratio to onnxruntime with its spread; and IREE's compile time (a cold cache).

The graph: ``conv`` 3×3 32→32 on 32×32 int8 with a half_up requantisation, then ``relu``.

Run: ``python benchmarks/tosa_engines.py`` (not ``tosa.py``: a script of that name beside the
others would shadow tosa-tools' own ``tosa`` package for every benchmark).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

import numpy as np

from waiexport import write
from waiexport.builder import GraphBuilder, conv, rq
from waiexport.targets.engines import engine

ENGINES = ("ort-cpu", "tosa-ref", "iree-cpu")


def graph():
    b = GraphBuilder()
    w = np.random.default_rng(0).integers(-128, 128, (32, 32, 3, 3))
    y = b.op(
        "conv",
        b.input(32, -128, 127, max_h=32, max_w=32),
        conv(w, pad=1, rq=rq(shift=12, bias=list(range(32)), round="half_up")),
    )
    b.output(b.op("relu", y))
    return b.build()


def main(repeat: int = 15) -> None:
    data = write(graph())
    x = [np.random.default_rng(1).integers(-128, 128, (32, 32, 32))]
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()  # IREE compiles from a cold cache
    runs = {name: engine(name).load(data).decode for name in ENGINES}
    t = time.perf_counter()
    first = [o.tolist() for o in runs["iree-cpu"](x, [])]
    compile_s = time.perf_counter() - t
    assert all(first == [o.tolist() for o in runs[name](x, [])] for name in ENGINES)
    times = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            t = time.perf_counter()
            run(x, [])
            times[name].append(time.perf_counter() - t)
    med = {name: statistics.median(ts) * 1e3 for name, ts in times.items()}
    print(
        f"conv 3x3 32->32, 32x32, int8, {repeat} interleaved rounds: "
        + ", ".join(f"{name} {med[name]:.1f} ms" for name in ENGINES)
    )
    for name in ENGINES[1:]:
        ratios = sorted(b / a for a, b in zip(times["ort-cpu"], times[name]))
        print(
            f"  {name}/onnxruntime = {statistics.median(ratios):.1f}x "
            f"(spread {ratios[0]:.1f}-{ratios[-1]:.1f}x)"
        )
    print(f"  IREE: first decode, tosa-opt and compile included, {compile_s:.2f} s")


if __name__ == "__main__":
    main()
