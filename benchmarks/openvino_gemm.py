"""OpenVINO's exact integer forms of a GEMM at the realistic ``int_synth`` set's sizes,
against each other and against our whole ``ort-cpu`` model of the set on onnxruntime,
interleaved in one process (A B C A B C), the median ratio with its spread.

OpenVINO computes every integer ``MatMul``, ``Conv`` and ``ReduceSum`` through float32
(docs/runtimes.md), so an exact sum of products on it is int32 ``Mul`` and ``Add``
alone. Each form here computes only the set's GEMMs (its 386,662,400 products: each
layer's four phases, ``Cin`` times their 9, 6, 6 and 4 taps, as 1×1 convolutions at the
latent's positions), no requantisation and no windows: what the form costs, apart from the
rest of a model.

- ``chain``: our export's form (``elementwise_sum``): ``acc + x_j·w_j`` over the rows,
  a ``Mul`` that OpenVINO fuses into the ``Add`` after it.
- ``tree``: the form it replaced: the products in blocks of 8,192 a position, each block
  summed by a tree of ``Slice`` halves and ``Add``, so every product goes through memory.

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
from waiexport.targets.onnx.emit import I32, I64, Emitter
from waiexport.targets.onnx.mac.elementwise import elementwise_sum, halves

#: The set's GEMMs at a 16×16 latent: (rows, output channels, H, W), a layer's phases.
LAYERS = tuple(
    (cin * taps, cout, side, side)
    for cin, cout, side in ((192, 128, 16), (128, 64, 32), (64, 3, 64))
    for taps in (9, 6, 6, 4)
)


def _chain(e: Emitter, x: str, w: np.ndarray) -> str:
    return elementwise_sum(e, x, w[:, :, None, None], strides=(1, 1), pads=(0,) * 4, dtype=I32)


def _tree(e: Emitter, x: str, w: np.ndarray) -> str:
    cols = e.node("Unsqueeze", [x, e.const([2], I64)])
    block = max(1, 8192 // w.shape[0])
    acc = None
    for k0 in range(0, w.shape[1], block):
        part = w[:, k0 : k0 + block]
        rows = e.slice(cols, [k0], [k0 + part.shape[1]], [1])
        t = e.node("Mul", [rows, e.const(part.T[None, :, :, None, None], I32)])
        t = halves(e, t, part.shape[1], axis=1)
        acc = t if acc is None else e.node("Add", [acc, t])
    return e.node("Squeeze", [acc, e.const([1], I64)])


FORMS = {"chain": _chain, "tree": _tree}


def _model(form, rng) -> tuple[bytes, list]:
    """The set's GEMMs in ``form``, one model, and a feed of u8 activations."""
    e = Emitter()
    e.target = target("openvino-cpu")
    ins, outs, feed = [], [], []
    for i, (k, c, h, w) in enumerate(LAYERS):
        ins.append(helper.make_tensor_value_info(f"x{i}", I32, [1, k, h, w]))
        out = form(e, f"x{i}", rng.integers(-40, 41, (c, k)))
        e.nodes.append(helper.make_node("Identity", [out], [f"out{i}"]))
        outs.append(helper.make_tensor_value_info(f"out{i}", I32, None))
        feed.append(rng.integers(0, 256, (1, k, h, w), dtype=np.int32))
    g = helper.make_graph(e.nodes, "gemms", ins, outs, e.inits)
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
        f"int_synth (realistic) GEMMs on OpenVINO, {sum(k * c * h * w for k, c, h, w in LAYERS):,}"
        f" products, {args.rounds} rounds interleaved, load {os.getloadavg()[0]:.1f}:"
    )
    whole = statistics.median(times["ort-cpu"]) * 1e3
    print(f"  ort-cpu (its whole model) on onnxruntime: {whole:.1f} ms")
    for name in FORMS:
        print(
            f"  {name}: {statistics.median(times[name]) * 1e3:.1f} ms,"
            f" against ort-cpu {ratio(times, name, 'ort-cpu')}"
        )
    print(f"  chain against tree: {ratio(times, 'chain', 'tree', 2)}")


if __name__ == "__main__":
    main()
