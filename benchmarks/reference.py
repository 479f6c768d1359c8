"""How fast the exact reference is, as ratios against peers run in this process.

1. The vectorised reference against the literal one, on the same small graph.
2. A ``conv`` 3×3 64→64 on 128×128 against onnxruntime's ``ConvInteger`` (u8×u8, zero
   points 0) on the same shapes.
3. A 3-layer stride-2 ``conv_transpose`` stack (64 channels, k4 p1, 32×32 → 256×256) against
   ``ConvInteger`` on its phase form (§9.3: per layer one 2×2 convolution with 4·64 output
   channels), which has the same multiply-accumulates: onnxruntime has no integer transposed
   convolution.

Run: ``python benchmarks/reference.py``. Prints medians and ratios; asserts nothing.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from _graphs import conv_64, transpose_stack
from _timing import median_time
from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
from waiexport.reference import decode


def conv_integer_session(cin: int, cout: int, k: int, pad: int):
    x = helper.make_tensor_value_info("x", TensorProto.UINT8, [1, cin, None, None])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, [1, cout, None, None])
    weights = np.random.default_rng(0).integers(0, 128, (cout, cin, k, k)).astype(np.uint8)
    w = helper.make_tensor("w", TensorProto.UINT8, weights.shape, weights.tobytes(), raw=True)
    node = helper.make_node("ConvInteger", ["x", "w"], ["y"], pads=[pad] * 4)
    model = helper.make_model(
        helper.make_graph([node], "c", [x], [y], [w]), opset_imports=[helper.make_opsetid("", 21)]
    )
    onnx.checker.check_model(model, full_check=True)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def main() -> None:
    rng = np.random.default_rng(1)

    # 1. vectorised against literal, on a graph the literal one finishes
    b = GraphBuilder()
    x = b.input(8, -128, 127)
    h = b.op("conv", x, conv(rng.integers(-128, 128, (8, 8, 3, 3)), pad=1, rq=rq(shift=8)))
    b.output(
        b.op(
            "conv_transpose",
            h,
            conv_transpose(rng.integers(-64, 64, (8, 4, 4, 4)), stride=2, pad=1, rq=rq(shift=8)),
        )
    )
    g = b.build()
    xs = [rng.integers(-128, 128, (8, 12, 12))]
    vec = median_time(lambda: decode(g, xs, []), 5)
    lit = median_time(lambda: decode(g, xs, [], literal=True), 1)
    print(
        f"vectorised vs literal (conv 8→8 + conv_transpose 8→4 on 12×12): "
        f"{vec * 1e3:.2f} ms vs {lit * 1e3:.0f} ms, literal/vectorised = {lit / vec:.0f}×"
    )

    # 2. conv 3×3 64→64 on 128×128
    g = conv_64(rng)
    xs = [rng.integers(-128, 128, (64, 128, 128))]
    ref = median_time(lambda: decode(g, xs, []), 5)
    sess = conv_integer_session(64, 64, 3, 1)
    feed = {"x": rng.integers(0, 256, (1, 64, 128, 128)).astype(np.uint8)}
    ort_t = median_time(lambda: sess.run(None, feed), 20)
    print(
        f"conv 3×3 64→64 128×128: reference {ref * 1e3:.1f} ms, onnxruntime ConvInteger "
        f"{ort_t * 1e3:.1f} ms, reference/onnxruntime = {ref / ort_t:.1f}× (goal ≤ 20×)"
    )

    # 3. conv_transpose stack
    g = transpose_stack(rng)
    xs = [rng.integers(-128, 128, (64, 32, 32))]
    ref = median_time(lambda: decode(g, xs, []), 3)
    sessions = [
        (
            conv_integer_session(64, 256, 2, 1),
            {"x": rng.integers(0, 256, (1, 64, s, s)).astype(np.uint8)},
        )
        for s in (32, 64, 128)
    ]
    ort_t = median_time(lambda: [s.run(None, f) for s, f in sessions], 10)
    print(
        f"conv_transpose ×3 64→64 32×32→256×256: reference {ref * 1e3:.0f} ms, onnxruntime "
        f"ConvInteger phase form {ort_t * 1e3:.0f} ms, reference/onnxruntime = "
        f"{ref / ort_t:.1f}× (goal ≤ 20×)"
    )


if __name__ == "__main__":
    main()
