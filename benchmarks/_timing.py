"""The timing helpers the benchmarks share."""

import os
import statistics
import subprocess
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


def interleaved(fns: dict, rounds: int) -> dict:
    """Each of ``fns`` (name → callable) timed once per round, in turn (A B C A B C …), so
    a shared machine's drift falls on all of them alike: name → the list of times."""
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return times


def ratio(times: dict, over: str, under: str, digits: int = 1) -> str:
    """``over``'s time against ``under``'s, pair by pair: the median and the spread."""
    r = sorted(a / b for a, b in zip(times[over], times[under]))
    return (
        f"{statistics.median(r):.{digits}f}x (spread {r[0]:.{digits}f}-{r[-1]:.{digits}f}x, "
        f"{len(r)} pairs)"
    )


def fresh(cmd: list):
    """A callable that runs ``cmd`` as a fresh process (for :func:`interleaved`); a command
    that fails ends the benchmark with its own message. The process may write Python's
    bytecode cache, as a default Python does, where the environment says not to
    (``PYTHONDONTWRITEBYTECODE``): a warm run then reads each module's compiled form, as
    the peers' installed modules are read, not compiled from source every time."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run():
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr

    return run
