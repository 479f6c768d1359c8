"""The one timing helper the benchmarks share."""

import statistics
import time


def median_time(fn, repeat: int, warm: bool = True) -> float:
    """The median of ``repeat`` timed calls of ``fn``, after one untimed call when ``warm``
    (it compiles kernels and fills caches)."""
    if warm:
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)
