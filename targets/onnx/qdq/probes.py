"""Probes of an NPU's QDQ kernels (:class:`~..probes.Probe`), each a pattern the QDQ export
emits, with values at the ties and ends where a kernel that is not the spec's integer goes
wrong: a convolution whose requantisation ties must round toward +∞ (§2's half_up; the ONNX
text and onnxruntime's CPU provider round them half-even), one with a power-of-two weight
scale per channel, and an ``Add`` and a ``Relu`` after it as a runtime fuses them."""

from __future__ import annotations

import numpy as np

from ..probes import Probe

__all__ = ["PROBES", "TIES", "PER_CHANNEL", "FUSED_ADD"]

TIES, PER_CHANNEL, FUSED_ADD = (
    "ties not rounded toward +inf",
    "per-channel scales misread",
    "a fused Add-Relu off its integers",
)


def _q(name: str, scale, dtype=np.int8) -> dict:
    return {
        f"{name}_s": np.asarray(scale, np.float32),
        f"{name}_z": np.zeros(np.shape(scale), dtype),
    }


def _ties() -> Probe:
    """``R_half_up(x / 4)`` of a 1×1 convolution on every tie of both signs."""
    x = np.array([-10, -6, -2, 2, 6, 10, -127, 126], np.int8).reshape(1, 1, 2, 4)
    want = ((x.astype(np.int64) + 2) >> 2).astype(np.int8)
    return Probe(
        TIES,
        "Conv",
        "int8",
        (
            ("DequantizeLinear", ["in0", "x_s", "x_z"], ["xf"]),
            ("DequantizeLinear", ["w", "w_s", "w_z"], ["wf"]),
            ("Conv", ["xf", "wf"], ["yf"], {"kernel_shape": [1, 1]}),
            ("QuantizeLinear", ["yf", "y_s", "y_z"], ["out0"]),
        ),
        {"w": np.ones((1, 1, 1, 1), np.int8), **_q("x", 1.0), **_q("w", 1.0), **_q("y", 4.0)},
        {"in0": x},
        want,
    )


def _per_channel() -> Probe:
    """A 1×1 convolution to four channels whose weight scales are 1, 2, 4 and 8, at 16: each
    channel its own power of two, at ties."""
    x = np.array([-24, -8, 8, 24], np.int8).reshape(1, 1, 1, 4)
    sw = np.array([1, 2, 4, 8])
    want = np.stack([(x[0, 0].astype(np.int64) * s + 8) >> 4 for s in sw])[None]
    return Probe(
        PER_CHANNEL,
        "Conv",
        "int8",
        (
            ("DequantizeLinear", ["in0", "x_s", "x_z"], ["xf"]),
            ("DequantizeLinear", ["w", "w_s", "w_z"], ["wf"], {"axis": 0}),
            ("Conv", ["xf", "wf"], ["yf"], {"kernel_shape": [1, 1]}),
            ("QuantizeLinear", ["yf", "y_s", "y_z"], ["out0"]),
        ),
        {
            "w": np.ones((4, 1, 1, 1), np.int8),
            **_q("x", 1.0),
            **_q("w", sw.astype(np.float32)),
            **_q("y", 16.0),
        },
        {"in0": x},
        want.astype(np.int8),
    )


def _fused_add() -> Probe:
    """``relu(a + a)`` of int8 at its ends, an ``Add`` then a ``Relu`` each quantized at 1:
    saturated at 127, never wrapped."""
    x = np.array([-128, -65, -64, -1, 0, 63, 64, 127], np.int8).reshape(1, 1, 2, 4)
    want = np.clip(np.maximum(2 * x.astype(np.int64), 0), -128, 127).astype(np.int8)
    return Probe(
        FUSED_ADD,
        "Add",
        "int8",
        (
            ("DequantizeLinear", ["in0", "x_s", "x_z"], ["xf"]),
            ("Add", ["xf", "xf"], ["sf"]),
            ("QuantizeLinear", ["sf", "x_s", "x_z"], ["s"]),
            ("DequantizeLinear", ["s", "x_s", "x_z"], ["sf2"]),
            ("Relu", ["sf2"], ["rf"]),
            ("QuantizeLinear", ["rf", "x_s", "x_z"], ["out0"]),
        ),
        _q("x", 1.0),
        {"in0": x},
        want,
    )


#: Every probe of an NPU's QDQ kernels.
PROBES = (_ties(), _per_channel(), _fused_add())
