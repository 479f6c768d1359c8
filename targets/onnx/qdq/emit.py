"""What the QDQ lowerings share: each graph tensor held as an 8-bit integer tensor whose value
is itself (scale 1, zero point 0: ``int8``, or ``uint8`` for one that is never negative), and
each operator a QDQ pattern around the float operator that computes it."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, numpy_helper

from ...errors import DoesNotFit
from ..emit import I8, U8, Emitter

__all__ = ["QdqEmitter", "F32", "storage", "WINDOW"]

F32 = TensorProto.FLOAT
#: The values each 8-bit storage type holds at zero point 0.
WINDOW = {I8: (-128, 127), U8: (0, 255)}


def storage(iv: tuple[int, int], what: str) -> int:
    """The 8-bit type a tensor whose certified interval is ``iv`` is held in: ``int8`` where
    it fits, else ``uint8``; :class:`DoesNotFit` naming ``what`` for one that fits neither
    (an NPU's activations are 8-bit)."""
    for dtype, (lo, hi) in WINDOW.items():
        if lo <= iv[0] and iv[1] <= hi:
            return dtype
    bits = max(int(iv[1]).bit_length(), int(-iv[0] - 1).bit_length()) + (iv[0] < 0)
    raise DoesNotFit(
        f"{what} takes values in [{iv[0]}, {iv[1]}], {bits} bits; the NPU's activations are 8-bit"
    )


class QdqEmitter(Emitter):
    """An :class:`~..emit.Emitter` that also knows each quantized tensor's type, and writes
    the QDQ pattern's halves: ``DequantizeLinear`` to a float name, ``QuantizeLinear`` back."""

    def __init__(self):
        super().__init__()
        self.types: dict[str, int] = {}  # a quantized tensor's type, by name
        self.scales: dict[str, float] = {}  # a float result's scale, where its Q is not 1

    def scale(self, values, hint: str = "s") -> str:
        """A float32 scale initializer: one value, or one per channel."""
        arr = np.asarray(values, dtype=np.float32)
        key = (F32, arr.shape, arr.tobytes())
        if key not in self._consts:
            name = self.name(hint)
            self.inits.append(numpy_helper.from_array(arr, name))
            self._consts[key] = name
        return self._consts[key]

    def dq(self, x: str, dtype: int | None = None, scale=1.0, axis: int | None = None) -> str:
        """``DequantizeLinear`` of the integer tensor ``x`` (its value is itself: scale 1,
        zero point 0 unless given): a float name."""
        dtype = self.types[x] if dtype is None else dtype
        zero = self.const(
            np.zeros(np.shape(scale), dtype=np.int64) if np.ndim(scale) else 0, dtype, "z"
        )
        return self.node(
            "DequantizeLinear",
            [x, self.scale(scale), zero],
            **({"axis": axis} if axis is not None else {}),
        )

    def q(self, xf: str, dtype: int, scale: float = 1.0) -> str:
        """``QuantizeLinear`` of the float ``xf`` to ``dtype`` at ``scale`` (the NPU rounds
        ``xf / scale`` and saturates it to the type): the quantized tensor's name."""
        y = self.node("QuantizeLinear", [xf, self.scale(scale), self.const(0, dtype, "z")])
        self.types[y] = dtype
        return y

    def pattern(self, op: str, ins: list[str], dtype: int, consts: list[str] = (), **attrs) -> str:
        """``op`` on the dequantized ``ins`` (and the float ``consts`` after them), quantized
        to ``dtype`` at scale 1: an operator that moves or combines values exactly."""
        return self.q(self.node(op, [self.dq(x) for x in ins] + list(consts), **attrs), dtype)
