"""A small builder over tosa-tools' serializer: named tensors with their shapes and types,
constants, and operators. Every tensor it names is NHWC ``[1, H, W, C]`` unless said otherwise."""

from __future__ import annotations

import numpy as np

from ..errors import EngineUnavailable, ExportError

__all__ = ["TosaBuilder", "I8", "I16", "I32", "narrowest"]

I8, I16, I32 = "int8", "int16", "int32"
_I32 = 1 << 31
_NP = {I8: np.int8, I16: np.int16, I32: np.int32}


def narrowest(lo: int, hi: int) -> str:
    """The narrowest TOSA integer type that holds ``[lo, hi]``."""
    for dtype, bits in ((I8, 8), (I16, 16)):
        if -(1 << (bits - 1)) <= lo and hi < 1 << (bits - 1):
            return dtype
    return I32


class TosaBuilder:
    """One TOSA 1.0 graph: :meth:`input` in feed order, :meth:`op`, :meth:`output`."""

    def __init__(self):
        try:
            import tosa_serializer as ts
        except ImportError:
            raise EngineUnavailable(
                "tosa-tools is not installed: pip install 'waiexport[tosa]'"
            ) from None
        self.ts = ts
        self.ser = ts.TosaSerializer("", targetMinor=0, targetDraft=False)
        self.types: dict = {}  # tensor name → (shape, dtype)
        self.inputs: list = []
        self.outputs: list = []

    def _dtype(self, dtype: str):
        return getattr(self.ts.DType, dtype.upper())

    def _note(self, tensor, shape, dtype) -> str:
        self.types[tensor.name] = (tuple(shape), dtype)
        return tensor.name

    def input(self, shape, dtype: str) -> str:
        self.inputs.append((tuple(shape), dtype))
        return self._note(self.ser.addPlaceholder(list(shape), self._dtype(dtype)), shape, dtype)

    def const(self, values, dtype: str, shape=None) -> str:
        """A constant; values that do not fit ``dtype`` raise ``ValueError``."""
        arr = np.asarray(values)
        cast = arr.astype(_NP[dtype])
        if not np.array_equal(cast.astype(np.int64), arr.astype(np.int64)):
            raise ValueError(f"a constant does not fit {dtype}")
        shape = list(shape if shape is not None else cast.shape or [1])
        return self._note(
            self.ser.addConst(shape, self._dtype(dtype), cast.reshape(shape)), shape, dtype
        )

    def shape_of(self, dims) -> str:
        """A ``shape`` operand (RESHAPE's new shape, SLICE's start and size)."""
        t = self.ser.addConst([len(dims)], self.ts.DType.SHAPE, np.array(dims, np.int64))
        return t.name

    def op(
        self, name: str, inputs: list[str], shape, dtype: str, attr: str | None = None, *args
    ) -> str:
        """Operator ``name`` (``CONV2D``, ``ADD``, …) writing one new tensor; ``attr`` names
        its attribute builder (default ``<Name>Attribute``), given ``args``."""
        if any(int(d) < 1 for d in shape):  # the reference model crashes on one
            raise ExportError(
                f"{name} would make a tensor of shape {list(shape)}: TOSA has no empty tensor"
            )
        past = [v for v in [*shape, *_integers(args)] if not -_I32 <= v < _I32]
        if past:  # the serializer's own TypeError otherwise
            raise ExportError(
                f"{name} would take {past[0]} (in its shape or an attribute: a "
                "stride, a pad, a size), past TOSA's int32 fields"
            )
        a = self.ts.TosaSerializerAttribute()
        getattr(a, attr or _attribute(name))(*args)
        out = self.ser.addIntermediate(list(shape), self._dtype(dtype))
        self.ser.addOperator(getattr(self.ts.Op, name), inputs, [out.name], a)
        return self._note(out, shape, dtype)

    def shape(self, x: str) -> tuple:
        return self.types[x][0]

    def dtype(self, x: str) -> str:
        return self.types[x][1]

    def cast(self, x: str, dtype: str) -> str:
        """``x`` as ``dtype`` (a value the certificate proves fits, so nothing wraps)."""
        if self.dtype(x) == dtype:
            return x
        return self.op("CAST", [x], self.shape(x), dtype)

    def nan(self):
        return self.ts.NanPropagationMode.PROPAGATE

    def output(self, x: str) -> None:
        shape, dtype = self.types[x]
        out = self.ser.addOutput(list(shape), self._dtype(dtype))
        a = self.ts.TosaSerializerAttribute()
        a.IdentityAttribute()
        self.ser.addOperator(self.ts.Op.IDENTITY, [x], [out.name], a)
        self.outputs.append((shape, dtype))

    def serialize(self) -> bytes:
        return bytes(self.ser.serialize())


def _integers(args) -> list[int]:
    """The integers among an attribute builder's arguments, lists of them included."""
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out += _integers(a)
        elif isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            out.append(int(a))
    return out


def _attribute(op: str) -> str:
    return "".join(part.capitalize() for part in op.split("_")) + "Attribute"
