"""The fuzz campaign's rate (``waiexport fuzz``; ``benchmarks/fuzz.py`` is the hostile-input
fuzz): graphs a second on the reference alone and on ``ort-cpu``, and on ``ort-cpu`` with 1
and 2 local processes (``--jobs``), each the median of interleaved rounds (A B C D, A B C D,
…) with its spread and the load average. Graphs of up to six operators, every third a
requantisation at its ties and every third one operator (the campaign's own mix). A
campaign meets new graphs, so every run draws graphs no run before it drew (its own seed)
and keeps no exported model on disk (``WAIEXPORT_MODEL_CACHE=off``, inherited by the
``--jobs`` processes): each pays its exports, as a campaign does. (With one seed for all,
the run after another read that one's exported models from disk: ``--jobs 2`` then read
2.7x one process.) The first round warms what is not per graph (imports, kernels) and is not
counted.

Run: ``python benchmarks/fuzz_engines.py [GRAPHS] [ROUNDS]`` (default 300 indices, 5 rounds).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import waiexport


def main(graphs: int = 300, rounds: int = 5) -> None:
    os.environ["WAIEXPORT_MODEL_CACHE"] = "off"
    runs = {
        "reference": dict(engine="reference"),
        "ort-cpu": dict(engine="ort-cpu"),
        "ort-cpu --jobs 2": dict(engine="ort-cpu", jobs=2),
    }
    rates: dict = {name: [] for name in runs}
    counted: dict = {}
    for r in range(rounds + 1):  # the first round warms imports and kernels, not counted
        for j, (name, kw) in enumerate(runs.items()):
            t = time.perf_counter()
            done = waiexport.fuzz(graphs=graphs, seed=len(runs) * r + j, **kw)
            seconds = time.perf_counter() - t
            counted[name] = done.campaign.graphs
            if r:
                rates[name].append(done.campaign.graphs / seconds)
    print(f"{graphs} graph indices a round, {rounds} rounds, load {os.getloadavg()[0]:.1f}")
    for name, rs in rates.items():
        print(
            f"{name}: {statistics.median(rs):.1f} graphs a second (spread {min(rs):.1f}-"
            f"{max(rs):.1f}; {counted[name]} graphs in the last round)"
        )
    one, two = rates["ort-cpu"], rates["ort-cpu --jobs 2"]
    print(
        f"--jobs 2 against 1 on ort-cpu: {statistics.median(b / a for a, b in zip(one, two)):.2f}x"
    )


if __name__ == "__main__":
    main(*[int(a) for a in sys.argv[1:3]])
