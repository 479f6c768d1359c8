"""Probes of a TFLite kernel path, each a pattern the TFLite export emits, built by the
exporter itself from a small graph, with values where a path that is not the spec's integer
goes wrong: a convolution's requantisation at every tie of both signs (half_up, §2), a
depthwise one with padding, a transposed one as ``int_synth``'s, a 16×8 one at int16's ties and
ends, an ``ADD`` at int8's ends after a ``RELU`` (as a runtime fuses them), and a tie past
2^24, where a float32 requantisation rounds away what breaks it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from waiexport.builder import GraphBuilder, conv, conv_transpose, rq
from waiexport.graph import Graph
from waiexport.reference import decode

from .export import build_tflite
from .lower._common import type_for

__all__ = ["PROBES", "TIES", "WIDE", "DEPTHWISE", "TRANSPOSED", "FUSED_ADD", "PAST_2_24"]

TIES, WIDE, DEPTHWISE, TRANSPOSED, FUSED_ADD, PAST_2_24 = (
    "ties not rounded toward +inf",
    "16x8 ties not rounded toward +inf",
    "a padded depthwise convolution off its integers",
    "a transposed convolution's window or ties off its integers",
    "a fused RELU-ADD off its integers",
    "a tie past 2^24 rounded in float32",
)


@dataclass(frozen=True)
class GraphProbe:
    """One probe: the failure class it names, the TFLite operator it covers, the graph
    whose export is its model, and one input (``[C, H, W]``) whose exact output is the
    reference's."""

    failure: str
    op: str
    graph: Graph
    x: np.ndarray
    dtype: str = "int8"
    runs: int = 1

    @property
    def name(self) -> str:
        return f"{self.op} {self.dtype}: {self.failure}"

    def model(self) -> bytes:
        return build_tflite(self.graph, [self.x.shape], {"probe": self.name})

    @property
    def feed(self) -> dict:
        return {"in0": np.transpose(self.x, (1, 2, 0))[None].astype(self._type(0))}

    @cached_property
    def want(self) -> np.ndarray:
        (y,) = decode(self.graph, [self.x], [])
        return np.transpose(y, (1, 2, 0))[None].astype(self._type(len(self.graph.ops)))

    def _type(self, t: int) -> str:
        """Graph tensor ``t``'s type in the model (int8, or int16 past it)."""
        rec = self.graph.tensor(t)
        return type_for(rec.lo, rec.hi).lower()

    def wrong(self, got) -> str | None:
        """What a wrong answer ``got`` says, or ``None`` for the exact one."""
        got = np.asarray(got)
        if got.shape == self.want.shape and (got == self.want).all():
            return None
        at = np.flatnonzero(got != self.want)[0] if got.shape == self.want.shape else 0
        return (
            f"{self.failure}: {self.op} on {self.dtype} gives {got.reshape(-1)[at]}, exact is "
            f"{self.want.reshape(-1)[at]}"
        )


def _conv(weights, shift, bias, groups=1, pad=0, lo=-128, hi=127, then=None) -> Graph:
    """One convolution (``half_up``, a ``pre`` bias), clamped to ``[lo, hi]``; ``then``
    adds what follows it."""
    weights = np.asarray(weights)
    b = GraphBuilder()
    x = b.input(weights.shape[1] * groups, -128, 127, max_h=16, max_w=16)
    block = rq(shift=shift, round="half_up", bias=bias, bias_kind="pre")
    y = b.op(
        "conv", x, conv(weights, pad=pad, groups=groups, rq=block), policy="clamp", lo=lo, hi=hi
    )
    b.output(then(b, x, y) if then else y)
    return b.build()


def _transposed() -> Graph:
    """A ``conv_transpose`` k5 s2 p2 (an output padding of 1), shifts 5 and 7: ``int_synth``'s
    layer at its ties."""
    b = GraphBuilder()
    x = b.input(2, -128, 127, max_h=16, max_w=16)
    w = np.arange(-24, 26).reshape(2, 1, 5, 5)
    block = rq(shift=[5, 7], round="half_up", bias=[1, -3], bias_kind="pre")
    params = conv_transpose(np.concatenate([w, -w], 1), stride=2, pad=2, out_pad=1, rq=block)
    b.output(b.op("conv_transpose", x, params, policy="clamp", lo=-128, hi=127))
    return b.build()


def _relu_add(b, x, y):
    return b.op("add", [b.op("relu", y), x], policy="clamp", lo=-128, hi=127)


def _probes() -> tuple:
    full = np.arange(-128, 128).reshape(1, 16, 16)
    rng = np.random.default_rng(7)
    past = np.zeros((1, 2, 4), np.int64)
    past[0, 0] = [0, 2, 4, -2]
    return (
        GraphProbe(
            TIES,
            "CONV_2D",
            _conv(np.array([1, -1, 3, 31]).reshape(4, 1, 1, 1), [0, 1, 5, 9], [0, 1, -3, 7]),
            full,
        ),
        GraphProbe(
            WIDE,
            "CONV_2D",
            _conv(
                np.array([1, -128, 90, 127]).reshape(4, 1, 1, 1),
                [0, 1, 5, 0],
                [0, 1, -3, 7],
                lo=-32768,
                hi=32767,
            ),
            full,
            dtype="int16",
        ),
        GraphProbe(
            DEPTHWISE,
            "DEPTHWISE_CONV_2D",
            _conv(rng.integers(-31, 32, (4, 1, 3, 3)), 8, [5, -5, 0, 8], groups=4, pad=1),
            full.reshape(4, 8, 8),
        ),
        GraphProbe(TRANSPOSED, "TRANSPOSE_CONV", _transposed(), full.reshape(4, 8, 8)[:2] // 16),
        GraphProbe(
            FUSED_ADD,
            "ADD",
            _conv(np.ones((1, 1, 1, 1)), 0, [100], lo=-28, hi=127, then=_relu_add),
            full,
        ),
        # acc = 2^24 + 2^17 + x at 2^-18: the model's 4·acc + 2 passes 2^26, where float32
        # loses the 2 that breaks the tie, and 64.5 rounds to even (64), not half_up (65)
        GraphProbe(
            PAST_2_24, "CONV_2D", _conv(np.ones((1, 1, 1, 1)), 18, [(64 << 18) + (1 << 17)]), past
        ),
    )


#: Every probe of a TFLite kernel path.
PROBES = _probes()
