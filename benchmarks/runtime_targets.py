"""Each runtime target's model on its own runtime against our ``ort-cpu`` model on
onnxruntime and onnxruntime's float32 peer of the graph (``float_peer.py``), on the realistic
``int_synth`` set (``examples make --full``: 192→128→64→3, three transposed convolutions),
interleaved in one process (A B C A B C), the median ratio with its spread. A target that
refuses the set prints its refusal by node instead: an honest "cannot host" is a result.

Run: ``python benchmarks/runtime_targets.py [--size HxW] [--rounds N] [RUNTIME ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

import numpy as np

from _graphs import int_synth_full
from _timing import interleaved, ratio
from float_peer import _float_model, _session
from waiexport import write
from waiexport.descriptions import target
from waiexport.targets.engines import engine
from waiexport.targets.engines.ort import run_session
from waiexport.targets.errors import EngineUnavailable, ExportError
from waiexport.targets.exporter import export
from waiexport.targets.format import format_of

RUNTIMES = ("tvm-llvm", "openvino-cpu", "tract")


def _on_runtime(name: str, g, x):
    """A call of ``name``'s own target's model of ``g`` on its runtime (in this process), or
    the reason it has none."""
    try:
        eng = engine(name, isolate=False)
    except EngineUnavailable as e:
        return None, f"not installed: {e}"
    try:
        exp = export(write(g), target(name), "synth")
    except ExportError as e:
        return None, str(e)
    fmt = format_of(exp.target)
    model = exp.built(None)
    run = eng.open(model)
    feed = fmt.feed(exp.graph, model, [x], [])
    return (lambda: run(feed)), None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="16x16", help="the latent's HxW (the output is 8x)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument(
        "runtimes", nargs="*", default=list(RUNTIMES), help=f"of {', '.join(RUNTIMES)} (all)"
    )
    args = ap.parse_args()
    h, w = map(int, args.size.split("x"))
    g = int_synth_full()
    t = g.tensor(g.inputs[0].tensor)
    x = np.random.default_rng(0).integers(t.lo, t.hi + 1, (t.channels, h, w))
    exact = export(write(g), target("ort-cpu"), "synth")
    ours, peer = _session(exact.prepared.SerializeToString()), _session(_float_model(g))
    fx = x[None].astype(np.float32)
    fns = {
        "ort-cpu": lambda: run_session(exact.graph, ours, [x], []),
        "float32": lambda: peer.run(None, {"x": fx}),
    }
    for name in args.runtimes:
        fn, why = _on_runtime(name, g, x)
        if fn is None:
            print(f"{name}: no model: {why[:300]}")
            continue
        fns[name] = fn
    for fn in fns.values():
        fn()
    times = interleaved(fns, args.rounds)
    load = os.getloadavg()[0]
    print(
        f"int_synth (realistic), latent {h}x{w}, {args.rounds} rounds interleaved, load {load:.1f}:"
    )
    for name in fns:
        print(
            f"  {name}: {statistics.median(times[name]) * 1e3:.1f} ms"
            + (
                ""
                if name in ("ort-cpu", "float32")
                else f", against ort-cpu on onnxruntime {ratio(times, name, 'ort-cpu')}"
            )
            + (
                ""
                if name == "float32"
                else f", against onnxruntime float32 {ratio(times, name, 'float32')}"
            )
        )
    print(json.dumps({n: statistics.median(v) for n, v in times.items()}))


if __name__ == "__main__":
    main()
