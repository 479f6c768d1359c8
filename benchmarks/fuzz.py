"""The long fuzz run: N structure-aware mutations across the six input families
(:mod:`waiexport.conformance.fuzz`), in child processes of BATCH inputs each, every child
under an address-space limit (RLIMIT_AS); prints the counts per family and per outcome, the
worst time per input, and each child's peak memory (ru_maxrss) beside a child that only
imported the package, since numba and onnxruntime allocate outside tracemalloc's view.

Run: ``python benchmarks/fuzz.py [N] [BATCH]`` (default 100,000 inputs in batches of 2,000).
"""

from __future__ import annotations

import collections
import json
import multiprocessing as mp
import resource
import sys
import time

LIMIT = 4 << 30  # bytes of address space a child may map: a hostile count that allocated
# in proportion to itself would die here instead of passing


def _child(args):
    seed, count = args
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
    import random
    from waiexport.conformance.fuzz import FAMILIES, mutate, outcome, seeds

    start = seeds()
    rng = random.Random(seed)
    counts = collections.Counter()
    worst = (0.0, "")
    for n in range(count):
        family = FAMILIES[n % len(FAMILIES)]
        item = mutate(rng, family, rng.choice(start[family]))
        t = time.perf_counter()
        try:
            code = outcome(family, item, start["_graph"][0])
        except Exception as e:  # the property broken: reported, never hidden
            code = f"CRASH {type(e).__name__}: {str(e)[:100]}"
        dt = time.perf_counter() - t
        counts[f"{family} {code}"] += 1
        if dt > worst[0]:
            worst = (dt, family)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return dict(counts), worst, rss


def _baseline(_):
    from waiexport.conformance.fuzz import seeds

    seeds()
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(n: int = 100_000, batch: int = 2_000) -> None:
    ctx = mp.get_context("spawn")
    t0 = time.perf_counter()
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        base = pool.map(_baseline, [0])[0]
        runs = pool.map(
            _child, [(seed, min(batch, n - seed * batch)) for seed in range(-(-n // batch))]
        )
    counts = collections.Counter()
    for c, _, _ in runs:
        counts.update(c)
    worst = max(w for _, w, _ in runs)
    peak = max(r for _, _, r in runs)
    total = sum(counts.values())
    print(
        f"{total} inputs in {time.perf_counter() - t0:.0f} s, {len(runs)} children of "
        f"{batch}, each under RLIMIT_AS {LIMIT >> 30} GiB"
    )
    for key, k in sorted(counts.items()):
        print(f"  {k:>7}  {key}")
    crashes = sum(k for key, k in counts.items() if " CRASH " in f" {key}")
    print(
        f"worst time per input {worst[0] * 1e3:.0f} ms ({worst[1]}); peak child memory "
        f"{peak / 1024:.0f} MiB against {base / 1024:.0f} MiB for a child that only "
        f"imported; {crashes} inputs broke the property"
    )
    print(json.dumps({"crashes": crashes, "inputs": total}))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
