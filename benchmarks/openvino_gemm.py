"""OpenVINO's exact integer forms of a convolution's sum at the realistic ``int_synth``
set's sizes, against each other and against our whole ``ort-cpu`` model of the set on
onnxruntime, interleaved in one process (A B C A B C), the median ratio with its spread.

OpenVINO computes every integer ``MatMul``, ``Conv`` and ``ReduceSum`` through float32
(docs/runtimes.md), so an exact sum of products on it is int32 ``Mul`` and ``Add`` alone.
Each form here computes only the set's convolution sums (its 386,662,400 products: each
layer's four phases, ``Cin`` times their 3×3, 3×2, 2×3 and 2×2 taps at the latent's
positions), no requantisation: what the form costs, apart from the rest of a model. Its
inputs have static shapes, as the engine compiles a model for each decode's shapes.

- ``chain``: ``acc + x_j·w_j`` over the taps' rows (``elementwise_sum``: views of the flat
  input at stride 1), a ``Mul`` and the five ``Add`` after it one node on OpenVINO.
- ``export``: what the export takes (``mac_sum``): Winograd's ``F(2×2, kh×kw)`` where it
  fits and pays (``winograd_sum``: the same chain over the transformed inputs, 16
  products for four outputs of a 3×3 kernel where 36), else the chain.

Run: ``python benchmarks/openvino_gemm.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np
from onnx import helper

from _graphs import int_synth_full
from _timing import interleaved, ratio
from float_peer import _session
from waiexport import write
from waiexport.descriptions import target
from waiexport.targets.engines.ort import run_session
from waiexport.targets.exporter import export
from waiexport.targets.onnx.emit import I32, Emitter
from waiexport.targets.onnx.mac import mac_sum
from waiexport.targets.onnx.mac.elementwise import elementwise_sum

#: The set's convolution sums at a 16×16 latent: (Cin, Cout, kernel, side), a layer's phases.
LAYERS = tuple(
    (cin, cout, k, side)
    for cin, cout, side in ((192, 128, 16), (128, 64, 32), (64, 3, 64))
    for k in ((3, 3), (3, 2), (2, 3), (2, 2))
)
X_RANGE = (0, 255)


def _pads(k: tuple) -> tuple:
    return (k[0] - 1, k[1] - 1, 0, 0)


def _chain(e: Emitter, x: str, w: np.ndarray) -> str:
    return elementwise_sum(e, x, w, strides=(1, 1), pads=_pads(w.shape[2:]), dtype=I32)


def _export(e: Emitter, x: str, w: np.ndarray) -> str:
    return mac_sum(
        e, x, X_RANGE, w, e.target, groups=1, strides=(1, 1), pads=_pads(w.shape[2:]), dtype=I32
    )


FORMS = {"chain": _chain, "export": _export}


def _model(form, rng) -> tuple[bytes, list]:
    """The set's convolution sums in ``form``, one model, and a feed of u8 activations."""
    e = Emitter()
    e.target = target("openvino-cpu")
    ins, outs, feed = [], [], []
    for i, (cin, cout, k, side) in enumerate(LAYERS):
        ins.append(helper.make_tensor_value_info(f"x{i}", I32, [1, cin, side, side]))
        out = form(e, f"x{i}", rng.integers(-40, 41, (cout, cin, *k)))
        e.nodes.append(helper.make_node("Identity", [out], [f"out{i}"]))
        outs.append(helper.make_tensor_value_info(f"out{i}", I32, None))
        feed.append(rng.integers(*X_RANGE, (1, cin, side, side), endpoint=True, dtype=np.int32))
    g = helper.make_graph(e.nodes, "sums", ins, outs, e.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    return m.SerializeToString(), feed


def _on_openvino(model: bytes, feed: list):
    import openvino as ov  # reason: the benchmark's own runtime, loaded when it runs

    core = ov.Core()
    req = core.compile_model(
        core.read_model(model=model, weights=b""), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}
    ).create_infer_request()
    return lambda: req.infer(feed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    g = int_synth_full()
    t = g.tensor(g.inputs[0].tensor)
    x = np.random.default_rng(0).integers(t.lo, t.hi + 1, (t.channels, 16, 16))
    exact = export(write(g), target("ort-cpu"), "synth")
    ours = _session(exact.prepared.SerializeToString())
    fns = {"ort-cpu": lambda: run_session(exact.graph, ours, [x], [])}
    for name, form in FORMS.items():
        fns[name] = _on_openvino(*_model(form, np.random.default_rng(1)))
        print(f"{name}: compiled", flush=True)
    outs = [[np.asarray(v) for v in fns[name]().values()] for name in FORMS]
    assert all(np.array_equal(a, b) for a, b in zip(*outs)), "the forms differ"
    times = interleaved(fns, args.rounds)
    print(
        f"int_synth (realistic) convolution sums on OpenVINO,"
        f" {sum(i * o * k[0] * k[1] * s * s for i, o, k, s in LAYERS):,}"
        f" products, {args.rounds} rounds interleaved, load {os.getloadavg()[0]:.1f}:"
    )
    whole = statistics.median(times["ort-cpu"]) * 1e3
    print(f"  ort-cpu (its whole model) on onnxruntime: {whole:.1f} ms")
    for name in FORMS:
        print(
            f"  {name}: {statistics.median(times[name]) * 1e3:.1f} ms,"
            f" against ort-cpu {ratio(times, name, 'ort-cpu')}"
        )
    print(f"  export against chain: {ratio(times, 'export', 'chain', 2)}")


if __name__ == "__main__":
    main()
