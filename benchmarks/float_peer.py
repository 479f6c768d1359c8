"""The exported exact model against onnxruntime's float32 ``Conv`` / ``ConvTranspose`` of the
same shapes plus its epilogue (bias, a scale by 2^-s, floor, the clamp), interleaved in one
process (A B A B), both with 2 intra-op threads and spinning off: the median ratio exact/float
with its spread. The float model is the peer a user would otherwise ship; it is inexact in
general and is here only as a yardstick.

Run: ``python benchmarks/float_peer.py``.
"""

from __future__ import annotations

import statistics

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from _graphs import conv_64, transpose_stack
from _timing import interleaved, ratio
from waiexport import write
from waiexport.targets.descriptions import target
from waiexport.targets.engines import run_session
from waiexport.targets.exporter import export

F32 = TensorProto.FLOAT


def _session(model: bytes):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def _float_model(g) -> bytes:
    """Each conv / conv_transpose of ``g`` as float32, then + bias, · 2^-s, floor, clamp."""
    nodes, inits, name = [], [], "x"
    for k, op in enumerate(g.ops):
        p = op.params
        w = p.weights.astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{k}"))
        if op.name == "conv":
            nodes.append(helper.make_node("Conv", [name, f"w{k}"], [f"a{k}"],
                                          pads=[p.ph, p.pw, p.ph, p.pw],
                                          strides=[p.sh, p.sw]))
        else:
            nodes.append(helper.make_node("ConvTranspose", [name, f"w{k}"], [f"a{k}"],
                                          pads=[p.ph, p.pw, p.ph, p.pw],
                                          strides=[p.sh, p.sw]))
        s = int(p.rq.shift[0])
        inits.append(numpy_helper.from_array(np.array(2.0 ** -s, np.float32), f"s{k}"))
        nodes.append(helper.make_node("Mul", [f"a{k}", f"s{k}"], [f"m{k}"]))
        nodes.append(helper.make_node("Floor", [f"m{k}"], [f"y{k}"]))
        rec = g.tensor(op.outputs[0])
        if rec.policy == "clamp":
            inits += [numpy_helper.from_array(np.array(v, np.float32), f"{t}{k}")
                      for t, v in (("lo", rec.lo), ("hi", rec.hi))]
            nodes.append(helper.make_node("Clip", [f"y{k}", f"lo{k}", f"hi{k}"], [f"c{k}"]))
            name = f"c{k}"
        else:
            name = f"y{k}"
    c = g.tensor(g.inputs[0].tensor).channels
    graph = helper.make_graph(nodes, "float", [helper.make_tensor_value_info("x", F32, [1, c, None, None])],
                              [helper.make_tensor_value_info(name, F32, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)],
                             ir_version=10).SerializeToString()


def compare(label: str, g, x: np.ndarray, rounds: int) -> None:
    exp = export(write(g), target("ort-cpu"))
    exact, peer = _session(exp.model.SerializeToString()), _session(_float_model(g))
    fx = x[None].astype(np.float32)
    run_exact = lambda: run_session(exp.graph, exact, [x], [])  # noqa: E731
    run_peer = lambda: peer.run(None, {"x": fx})  # noqa: E731
    run_exact(), run_peer()
    times = interleaved({"exact": run_exact, "float": run_peer}, rounds)
    print(f"{label}: exact {statistics.median(times['exact']) * 1e3:.1f} ms, float32 "
          f"{statistics.median(times['float']) * 1e3:.1f} ms, exact/float = "
          f"{ratio(times, 'exact', 'float')} interleaved")


def main() -> None:
    rng = np.random.default_rng(0)
    compare("conv 3x3 64->64, 128x128", conv_64(rng), rng.integers(-128, 128, (64, 128, 128)),
            15)
    compare("3 x conv_transpose k4 s2 p1 64->64, 32x32 -> 256x256", transpose_stack(rng),
            rng.integers(-128, 128, (64, 32, 32)), 7)


if __name__ == "__main__":
    main()
