"""Load time against graph size: chains of 800, 8,000 and 80,000 ``relu`` written, then
loaded (§10.5 steps 1-8: read, certify, plan), interleaved over rounds; prints the median
time of each and the growth per tenfold (linear is 10×).

Run: ``python benchmarks/load.py``.
"""

from __future__ import annotations

import statistics
import time

from waiexport.builder import GraphBuilder
from waiexport.load import load
from waiexport.whg1 import write


def chain(n: int) -> bytes:
    b = GraphBuilder()
    x = b.input(1, -100, 100, max_h=4, max_w=4)
    for _ in range(n):
        x = b.op("relu", x)
    b.output(x)
    return write(b.graph())


def main(rounds: int = 7) -> None:
    sizes = (800, 8_000, 80_000)
    files = {n: chain(n) for n in sizes}
    times = {n: [] for n in sizes}
    for _ in range(rounds):
        for n in sizes:
            t = time.perf_counter()
            load(files[n], profile="acc64", subset="full")
            times[n].append(time.perf_counter() - t)
    med = {n: statistics.median(times[n]) for n in sizes}
    for n in sizes:
        print(
            f"{n:>6} operators, {len(files[n]):>9,} bytes: load {med[n]:.3f} s "
            f"(spread {min(times[n]):.3f}-{max(times[n]):.3f} s)"
        )
    for a, b in zip(sizes, sizes[1:]):
        print(f"growth {a} -> {b}: {med[b] / med[a]:.1f}x per tenfold")


if __name__ == "__main__":
    main()
