"""The ``litert`` target's TFLite model on LiteRT's builtin kernels (no default delegate)
against our ``ort-cpu`` model on onnxruntime and onnxruntime's float32 peer of the same
graph (``float_peer.py``'s), interleaved in one process (A B C A B C), each with 2 threads:
the medians, the ratios with their spread and the load average, on two graphs: the realistic
``int_synth``'s shape (three ``conv_transpose`` k5 s2, 192→128→64→3, at a 16×16 latent)
with what the int8 form takes (int8 activations, weights within ±31, half_up power-of-two
requantisations), and the realistic jpegai ``hs_y`` (int16 and 16×8 kernels where its values
pass int8), at its 4×4. The realistic ``int_synth`` itself is refused for TFLite (a 17-bit
operand): its refusal is printed first.

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

from _graphs import int_synth_full, jpegai_full
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


def compare(label: str, g, x: np.ndarray, rounds: int) -> None:
    """Print the litert model of ``g`` against the ort-cpu model and the float32 peer on
    ``x``, interleaved, after checking that the two integer models agree."""
    tfl = export(write(g), target("litert")).built([x.shape])
    it = litert.Interpreter(
        model_content=tfl.data,
        num_threads=2,
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    it.allocate_tensors()
    (inp,), (out,) = it.get_input_details(), it.get_output_details()
    nhwc = np.transpose(x, (1, 2, 0))[None].astype(inp["dtype"])

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
    ms = {k: f"{statistics.median(v) * 1e3:.2f} ms" for k, v in times.items()}
    print(
        f"{label} ({rounds} rounds, load {os.getloadavg()[0]:.1f}): litert {ms['litert']}, "
        f"ort-cpu {ms['ort-cpu']}, float32 {ms['float32']}; litert/ort-cpu "
        f"{ratio(times, 'litert', 'ort-cpu', 2)}, litert/float32 "
        f"{ratio(times, 'litert', 'float32', 2)}; outputs equal"
    )


def main(rounds: int) -> None:
    print(f"ai-edge-litert {version('ai-edge-litert')}, onnxruntime {ort.__version__}")
    try:
        export(write(int_synth_full()), target("litert")).built([(192, 16, 16)])
    except DoesNotFit as e:
        print(f"realistic int_synth for litert: refused: {e}")
    x = np.random.default_rng(1).integers(-128, 128, (192, 16, 16))
    compare("int8 int_synth shape at 16x16", int8_synth(np.random.default_rng(0)), x, rounds)
    g = jpegai_full()["hs_y"]
    rec = g.tensor(g.inputs[0].tensor)
    x = np.random.default_rng(2).integers(rec.lo, rec.hi + 1, (rec.channels, 4, 4))
    compare("realistic hs_y at 4x4", g, x, rounds)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
