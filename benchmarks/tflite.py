"""The ``litert`` target's TFLite model on LiteRT's builtin kernels (no default delegate)
against our ``ort-cpu`` model on onnxruntime and onnxruntime's float32 peer of the same
graph (``float_peer.py``'s), interleaved in one process (A B C A B C), each with 2 threads:
the medians, the ratios with their spread and the load average. The graph is the realistic
``int_synth``'s shape (three ``conv_transpose`` k5 s2, 192→128→64→3, at a 16×16 latent)
with what the TFLite export takes exactly: int8 activations, weights within ±31, half_up
power-of-two requantisations. The realistic set itself is refused for TFLite (its 13-bit
operands): its refusal is printed first.

Run: ``python benchmarks/tflite.py [ROUNDS]`` (extras ``tflite`` and ``ort``).
"""

from __future__ import annotations

import os
import statistics
import sys
from importlib.metadata import version

import numpy as np
import onnxruntime as ort
from ai_edge_litert import interpreter as litert

from _graphs import int_synth_full
from _timing import interleaved, ratio
from float_peer import _float_model, _session
from waiexport import write
from waiexport.builder import GraphBuilder, conv_transpose, rq
from waiexport.descriptions import target
from waiexport.targets.errors import DoesNotFit
from waiexport.targets.exporter import export
from waiexport.targets.format import host_feed


def int8_synth(rng: np.random.Generator):
    """``int_synth``'s shape, int8 throughout: each layer requantised half_up at 2^-9 to
    int8 (a ``relu`` after the first two), the last clamped to ``[0, 127]``."""
    b = GraphBuilder()
    t = b.input(192, -128, 127)
    for k, (cin, cout) in enumerate(((192, 128), (128, 64), (64, 3))):
        block = rq(shift=9, round="half_up", bias=rng.integers(-64, 64, cout), bias_kind="pre")
        params = conv_transpose(
            rng.integers(-31, 32, (cin, cout, 5, 5)), stride=2, pad=2, out_pad=1, rq=block
        )
        lo = 0 if k == 2 else -128
        t = b.op("conv_transpose", t, params, policy="clamp", lo=lo, hi=127)
        t = b.op("relu", t) if k < 2 else t
    b.output(t)
    return b.build()


def main(rounds: int) -> None:
    try:
        export(write(int_synth_full()), target("litert")).built([(192, 16, 16)])
    except DoesNotFit as e:
        print(f"realistic int_synth for litert: refused: {e}")
    g = int8_synth(np.random.default_rng(0))
    x = np.random.default_rng(1).integers(-128, 128, (192, 16, 16))
    tfl = export(write(g), target("litert")).built([x.shape])
    it = litert.Interpreter(
        model_content=tfl.data,
        num_threads=2,
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    it.allocate_tensors()
    (inp,), (out,) = it.get_input_details(), it.get_output_details()
    nhwc = np.transpose(x, (1, 2, 0))[None].astype(np.int8)

    def run_litert():
        it.set_tensor(inp["index"], nhwc)
        it.invoke()
        return it.get_tensor(out["index"])

    exp = export(write(g), target("ort-cpu"))
    exact = _session(exp.prepared.SerializeToString())
    feed = host_feed(exp.graph, [x], [], exp.built().inputs)
    peer, fx = _session(_float_model(g)), {"x": x[None].astype(np.float32)}
    got = np.transpose(run_litert()[0], (2, 0, 1)).astype(np.int64)
    want = exact.run(None, feed)[0][0].astype(np.int64)
    assert (got == want).all(), "the litert model and the ort-cpu model differ"
    times = interleaved(
        {
            "litert": run_litert,
            "ort-cpu": lambda: exact.run(None, feed),
            "float32": lambda: peer.run(None, fx),
        },
        rounds,
    )
    ms = {k: f"{statistics.median(v) * 1e3:.1f} ms" for k, v in times.items()}
    print(
        f"int8 int_synth shape at 16x16 ({rounds} rounds, load {os.getloadavg()[0]:.1f}, "
        f"ai-edge-litert {version('ai-edge-litert')}, onnxruntime {ort.__version__}): "
        f"litert {ms['litert']}, ort-cpu {ms['ort-cpu']}, "
        f"float32 {ms['float32']}; litert/ort-cpu {ratio(times, 'litert', 'ort-cpu', 2)}, "
        f"litert/float32 {ratio(times, 'litert', 'float32', 2)}; outputs equal"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
