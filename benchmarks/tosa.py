"""One graph on onnxruntime (the ``ort-cpu`` export) and on the TOSA reference model (the
``tosa`` export, engine ``tosa-ref``), timed interleaved in one process (A B A B), each decode
through the engine as ``validate`` runs it: the median ratio with its spread.

The graph: ``conv`` 3×3 32→32 on 32×32 int8 with a half_up requantisation, then ``relu``.

Run: ``python benchmarks/tosa.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from waiexport import write
from waiexport.builder import GraphBuilder, conv, rq
from waiexport.targets.engines import engine


def graph():
    b = GraphBuilder()
    w = np.random.default_rng(0).integers(-128, 128, (32, 32, 3, 3))
    y = b.op("conv", b.input(32, -128, 127, max_h=32, max_w=32),
             conv(w, pad=1, rq=rq(shift=12, bias=list(range(32)), round="half_up")))
    b.output(b.op("relu", y))
    return b.build()


def main(repeat: int = 15) -> None:
    data = write(graph())
    x = [np.random.default_rng(1).integers(-128, 128, (32, 32, 32))]
    runs = {name: engine(name).load(data).run for name in ("ort-cpu", "tosa-ref")}
    first = [o.tolist() for o in runs["ort-cpu"](x, [])]
    assert first == [o.tolist() for o in runs["tosa-ref"](x, [])]
    times = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            t = time.perf_counter()
            run(x, [])
            times[name].append(time.perf_counter() - t)
    ratios = sorted(b / a for a, b in zip(times["ort-cpu"], times["tosa-ref"]))
    med = {name: statistics.median(ts) * 1e3 for name, ts in times.items()}
    print(f"conv 3x3 32->32, 32x32, int8: onnxruntime {med['ort-cpu']:.1f} ms, "
          f"tosa-ref {med['tosa-ref']:.1f} ms; tosa-ref/onnxruntime = "
          f"{statistics.median(ratios):.1f}x (spread {ratios[0]:.1f}-{ratios[-1]:.1f}x, "
          f"{repeat} interleaved pairs)")


if __name__ == "__main__":
    main()
