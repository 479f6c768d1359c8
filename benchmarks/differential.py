"""The differential fuzz run: the corpus's graphs (its one-operator graphs and its graph vectors),
mutated past the WHG1 header, and, every other draw, a chain of the random-graph generator
(:mod:`waiexport.conformance.random_graphs`: every operator the profile admits, one after
another as runtimes fuse them, with policies and clamps at the int32 ends and past 2^24,
scalars, and a state carried from decode to decode); each graph the reference loads is
decoded at its probe inputs (:func:`waiexport.probes.probe_inputs`: every input at its low
end, its high end, alternating, random) on the reference and on every engine named that loads
it, a graph with state also as a sequence of three decodes, and the outputs compared bit for
bit. An engine may refuse a graph (at load or per decode, as the reference does), decline a
decode its runtime is not exact on (``NotForEngine``: a side past its description's
``side_limit``), or fail a decode with its runtime's error (``EngineFailure``, one line); a
value other than the reference's is a difference, printed with the mutant kept, and so is any
other exception. Each batch runs in a child process of its own, under an address-space limit,
so what its engines and runtimes keep of thousands of graphs goes with it.

Run: ``python benchmarks/differential.py [N] [ENGINES] [OUT] [FIRST] [SOURCE]`` (default 2,000
draws on ``ort-cpu,ort-cpu-acc64,npu-int8,tosa-ref``, graphs that differ kept in
``/tmp/waiexport-differential``; batch ``k`` of 150 draws is seeded ``FIRST + k``, 0 by
default, so a run from a later ``FIRST`` draws graphs no earlier run drew; SOURCE ``both``,
``chains`` or ``mutants``; a chain takes one of the engines' profiles; a line per batch says
how far it is). It found the IREE
output buffer that outlived its array, onnxruntime's allocation error escaping ``run`` and
``export``, TOSA's int32 fields, the acc64 floor shift past 62 (an ``igdn``), an acc64
``conv_transpose`` whose checked output wrapped through an int8 move, and OpenVINO's
refusal of a feed naming an input it dropped, its wrong rows past 2^24 and its interleave of
a transposed convolution sized wrong on dynamic shapes, and, on the generator's chains,
OpenVINO writing each decode's sum into a folded constant and TVM declining every crop whose
window a scalar sizes (docs/hostile-input.md, and docs/runtimes.md's OpenVINO paragraph).
"""

from __future__ import annotations

import collections
import json
import multiprocessing as mp
import random
import resource
import sys
import time
from pathlib import Path

LIMIT = 16 << 30  # bytes of address space a child may map
BATCH = 150


def _graphs() -> list:
    from waiexport.conformance.generate import CORPUS

    out = []
    for path in [*sorted((CORPUS / "vectors").glob("*.jsonl")), CORPUS / "graphs" / "graphs.jsonl"]:
        for line in path.read_text().splitlines():
            v = json.loads(line)
            if v["load"] == "ok":
                out.append((path.stem, bytes.fromhex(v["graph"])))
    return out


def _mutant(rng: random.Random, data: bytes) -> bytes:
    """``data`` with one to three of its bytes past the header flipped, set to an edge
    value, or a word set to a count an attacker would pick."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        i, r = rng.randrange(32, len(b)), rng.random()
        if r < 0.5:
            b[i] ^= 1 << rng.randrange(8)
        elif r < 0.8:
            b[i] = rng.choice([0, 1, 2, 0x3F, 0x40, 0x7F, 0x80, 0xFE, 0xFF])
        else:
            word = rng.choice([0, 1, 2, 3, 2**31 - 1, 2**31, 2**32 - 1, rng.getrandbits(32)])
            b[i & ~3 : (i & ~3) + 4] = word.to_bytes(4, "little")
    return bytes(b)


def _same(want, got) -> bool:
    import numpy as np

    if want[0] != got[0]:
        return False
    if want[0] != "ok":
        return want[1] == got[1]
    return len(want[1]) == len(got[1]) and all(
        np.array_equal(a, b) for a, b in zip(want[1], got[1])
    )


def _child(args):
    seed, count, names, out, source = args
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
    from waiexport.probes import probe_inputs
    from waiexport.reference import Decoder, decode
    from waiexport.refusal import Refusal
    from waiexport.targets.engines import engine
    from waiexport.targets.errors import (
        DoesNotFit,
        EngineFailure,
        EngineUnavailable,
        ExportError,
        NotForEngine,
    )
    from waiexport.conformance.random_graphs import Seeded, graph as random_graph, sequence
    from waiexport.whg1 import read, write

    def run(fn):
        try:
            return ("ok", fn())
        except Refusal as r:
            return ("refuse", r.code)
        except (EngineFailure, MemoryError) as e:  # the runtime's error, or the limit's
            return ("fail", str(e)[:160])

    engines = {}
    for name in names:
        try:
            engines[name] = engine(name)
        except EngineUnavailable:
            pass
    rng, graphs = random.Random(seed), _graphs()
    counts, found = collections.Counter(), []
    profiles = sorted({e.profile for e in engines.values()})
    for n in range(count):
        if source == "chains" or source == "both" and n % 2:
            chain = random_graph(Seeded(rng), rng.choice(profiles))
            if chain is None:
                counts["chain outside its profile"] += 1
                continue
            op, data = "a random chain", write(chain)
        else:
            op, data = rng.choice(graphs)
            data = _mutant(rng, data)
        try:
            g = read(data)
        except Refusal:
            counts["not loaded"] += 1
            continue
        steps = sequence(g, seed=n) if any(i.kind == "state" for i in g.inputs) else []
        try:
            probes = probe_inputs(g, seed=n)
            want = [run(lambda: decode(g, i, s)) for i, s in probes]
            ref = Decoder(g)
            want += [run(lambda: ref.step(i, s)) for i, s in steps]
        except MemoryError:  # the child's address-space limit, which the runtimes share
            counts["reference past the address-space limit"] += 1
            continue
        for name, e in engines.items():
            try:
                loaded = e.load(data)
            except (Refusal, NotForEngine, DoesNotFit, ExportError):
                counts[f"{name} declined"] += 1
                continue
            except Exception as x:  # the property broken: reported, never hidden
                got = [("raised", f"at load: {type(x).__name__}: {str(x)[:120]}")]
            else:
                got, seq = [], loaded.sequence()
                calls = [(loaded.decode, i, s) for i, s in probes] + [
                    (seq.step, i, s) for i, s in steps
                ]
                for call, i, s in calls:
                    try:
                        got.append(run(lambda: call(i, s)))
                    except NotForEngine as x:  # a decode its runtime is not exact on
                        got.append(("decline", str(x)[:160]))
                    except Exception as x:
                        got.append(("raised", f"{type(x).__name__}: {str(x)[:120]}"))
            kinds = {k for k, _ in got}
            if len(got) == len(want) and all(
                _same(w, x) or x[0] in ("fail", "decline") for w, x in zip(want, got)
            ):
                counts[
                    f"{name} "
                    + (
                        "failed a decode"
                        if "fail" in kinds
                        else "declined a decode"
                        if "decline" in kinds
                        else "agreed"
                    )
                ] += 1
                continue
            counts[f"{name} DIFFERED"] += 1
            keep = Path(out) / f"{name}_{seed}_{n}.whg1"
            keep.write_bytes(data)
            k, w, x = next((k, w, x) for k, (w, x) in enumerate(zip(want, got)) if not _same(w, x))
            found.append(
                f"{name} on {op if op.startswith('a ') else 'a mutant of ' + op} "
                f"({keep}): decode {k}: the reference "
                f"{w[0]}, the engine {x[0]}" + (f" {x[1]}" if x[0] != "ok" else "")
            )
    return dict(counts), found


def main(
    n: int = 2_000,
    names: str = "ort-cpu,ort-cpu-acc64,npu-int8,tosa-ref",
    out: str = "/tmp/waiexport-differential",
    first: int = 0,
    source: str = "both",
) -> None:
    Path(out).mkdir(parents=True, exist_ok=True)
    ctx = mp.get_context("spawn")
    t0 = time.perf_counter()
    batches = [
        (first + k, min(BATCH, n - k * BATCH), names.split(","), out, source)
        for k in range(-(-n // BATCH))
    ]
    counts = collections.Counter()
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        for k, (c, found) in enumerate(pool.imap(_child, batches, chunksize=1), 1):
            counts.update(c)
            for line in found:
                print(line)
            print(
                f"batch {k} of {len(batches)}: {time.perf_counter() - t0:.0f} s, "
                f"{sum(v for key, v in counts.items() if 'DIFFERED' in key)} differences",
                file=sys.stderr,
                flush=True,
            )
    print(
        f"{n} draws ({source}) in {time.perf_counter() - t0:.0f} s: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )


if __name__ == "__main__":
    main(*(int(a) if k in (0, 3) else a for k, a in enumerate(sys.argv[1:])))
