"""The exported exact model against onnxruntime's float32 ``Conv`` / ``ConvTranspose`` of the
same shapes plus its epilogue (bias, a scale by 2^-s, floor, the clamp), interleaved in one
process (A B A B), both with 2 intra-op threads and spinning off: the median ratio exact/float
with its spread and the load average, on the conv 3×3, the transposed stack and the
realistic ``int_synth`` set (at a 16×16 and a 64×64 latent; the peaks of its ``relu``
outputs on the latent printed, and its model with every digit's product, as inputs whose
activations pass one u8 digit run it, against the float peer too). Each model runs on its own
feed, made once: the float peer's input as float32, the exact model's as the host makes it
(its checks of the input's range and its copy in the type the model takes it in, int8 for
the conv's, are the host's, not the model's). The float model is the peer a user would
otherwise ship, inexact in general and here only as a yardstick.

Run: ``python benchmarks/float_peer.py``.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import replace

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from _graphs import conv_64, int_synth_full, transpose_stack
from _timing import interleaved, ratio
from waiexport import write
from waiexport.descriptions import target
from waiexport.reference import decode
from waiexport.targets.format import host_feed
from waiexport.targets.exporter import export

F32 = TensorProto.FLOAT


def _session(model: bytes):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def _channel(values, name: str, inits: list) -> str:
    inits.append(numpy_helper.from_array(np.asarray(values, np.float32).reshape(1, -1, 1, 1), name))
    return name


def _epilogue(k: int, rq, c: int, x: str, nodes: list, inits: list) -> str:
    """The float yardstick of an ``rq`` block: ``· m·2^-s``, ``Floor``, ``+ post``."""
    scale = [rq.mult_of(o) * 2.0 ** -rq.shift_of(o) for o in range(c)]
    nodes.append(helper.make_node("Mul", [x, _channel(scale, f"s{k}", inits)], [f"m{k}"]))
    nodes.append(helper.make_node("Floor", [f"m{k}"], [f"f{k}"]))
    if rq.bias_kind != "post":
        return f"f{k}"
    post = _channel([rq.post_bias(o) for o in range(c)], f"b{k}", inits)
    nodes.append(helper.make_node("Add", [f"f{k}", post], [f"q{k}"]))
    return f"q{k}"


def _float_op(k: int, op, g, ins: list, nodes: list, inits: list) -> str:
    """One operator of ``g`` as float32 nodes; the name of its result."""
    p, c = op.params, g.tensor(op.outputs[0]).channels
    if op.name in ("conv", "conv_transpose"):
        inits.append(numpy_helper.from_array(p.weights.astype(np.float32), f"w{k}"))
        inits.append(
            numpy_helper.from_array(
                np.array([p.rq.pre_bias(o) for o in range(p.cout)], np.float32), f"pre{k}"
            )
        )
        attrs = dict(pads=[p.ph, p.pw, p.ph, p.pw], strides=[p.sh, p.sw])
        attrs.update(group=p.groups) if op.name == "conv" else attrs.update(
            output_padding=[p.oph, p.opw]
        )
        kind = "Conv" if op.name == "conv" else "ConvTranspose"
        nodes.append(helper.make_node(kind, [ins[0], f"w{k}", f"pre{k}"], [f"a{k}"], **attrs))
        return _epilogue(k, p.rq, c, f"a{k}", nodes, inits)
    if op.name == "rescale":
        return _epilogue(k, p.rq, c, ins[0], nodes, inits)
    if op.name == "clamp":
        inits += [
            numpy_helper.from_array(np.array(v, np.float32), f"{t}{k}")
            for t, v in (("lo", p.lo), ("hi", p.hi))
        ]
        nodes.append(helper.make_node("Clip", [ins[0], f"lo{k}", f"hi{k}"], [f"c{k}"]))
        return f"c{k}"
    if op.name == "pixel_shuffle":
        nodes.append(helper.make_node("DepthToSpace", ins, [f"d{k}"], blocksize=p.r, mode="CRD"))
        return f"d{k}"
    kinds = {"relu": "Relu", "abs": "Abs"}
    nodes.append(helper.make_node(kinds[op.name], ins, [f"u{k}"]))
    return f"u{k}"


def _float_model(g) -> bytes:
    """Each operator of ``g`` as float32 (conv / conv_transpose then ``· m·2^-s``, floor,
    ``+ post``; relu, abs, clamp, pixel_shuffle as themselves), with every ``clamp`` policy
    as a ``Clip``."""
    nodes, inits, names = [], [], {g.inputs[0].tensor: "x"}
    for k, op in enumerate(g.ops):
        name = _float_op(k, op, g, [names[t] for t in op.inputs], nodes, inits)
        rec = g.tensor(op.outputs[0])
        if rec.policy == "clamp":
            inits += [
                numpy_helper.from_array(np.array(v, np.float32), f"{t}{k}p")
                for t, v in (("lo", rec.lo), ("hi", rec.hi))
            ]
            nodes.append(helper.make_node("Clip", [name, f"lo{k}p", f"hi{k}p"], [f"p{k}"]))
            name = f"p{k}"
        names[op.outputs[0]] = name
    c = g.tensor(g.inputs[0].tensor).channels
    graph = helper.make_graph(
        nodes,
        "float",
        [helper.make_tensor_value_info("x", F32, [1, c, None, None])],
        [helper.make_tensor_value_info(names[g.outputs[0]], F32, None)],
        inits,
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10
    ).SerializeToString()


def compare(
    label: str, g, x: np.ndarray, rounds: int, role: str = "", tgt=target("ort-cpu")
) -> None:
    """Print the exported exact model of ``g`` for ``tgt`` against its float32 peer on
    ``x``."""
    exp = export(write(g), tgt, role)
    exact, peer = _session(exp.prepared.SerializeToString()), _session(_float_model(g))
    feed, fx = host_feed(exp.graph, [x], [], exp.built().inputs), {"x": x[None].astype(np.float32)}
    run_exact = lambda: exact.run(None, feed)  # noqa: E731
    run_peer = lambda: peer.run(None, fx)  # noqa: E731
    run_exact(), run_peer()
    times = interleaved({"exact": run_exact, "float": run_peer}, rounds)
    print(
        f"{label}: exact {statistics.median(times['exact']) * 1e3:.1f} ms, float32 "
        f"{statistics.median(times['float']) * 1e3:.1f} ms, exact/float = "
        f"{ratio(times, 'exact', 'float', 2)} interleaved, load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    rng = np.random.default_rng(0)
    compare("conv 3x3 64->64, 128x128", conv_64(rng), rng.integers(-128, 128, (64, 128, 128)), 25)
    compare(
        "3 x conv_transpose k4 s2 p1 64->64, 32x32 -> 256x256",
        transpose_stack(rng),
        rng.integers(-128, 128, (64, 32, 32)),
        15,
    )
    g = int_synth_full()
    rec = g.tensor(g.inputs[0].tensor)
    cpu = target("ort-cpu")
    every = replace(cpu, options=replace(cpu.options, skips_digits=False))
    relus = [op.outputs[0] for op in g.ops if op.name == "relu"]
    for n in (16, 64):
        x = rng.integers(rec.lo, rec.hi + 1, (rec.channels, n, n))
        kept = decode(g, [x], [], keep=True)
        peaks = " and ".join(str(int(kept[t].max())) for t in relus)
        label = f"realistic int_synth 192->128->64->3, {n}x{n}"
        compare(
            f"{label} (its relu outputs peak at {peaks}: one u8 digit)",
            g,
            x,
            25 if n == 16 else 15,
            "synth",
        )
        compare(
            f"{label}, every digit (the model where no If skips a high one)",
            g,
            x,
            25 if n == 16 else 15,
            "synth",
            every,
        )


if __name__ == "__main__":
    main()
