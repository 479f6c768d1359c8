"""A small builder of TFLite flatbuffers through the schema's object API (shipped in
``tflite-micro``; no TensorFlow): tensors, constant buffers, operators, the model's bytes."""

from __future__ import annotations

from functools import cache

import numpy as np

from ..errors import EngineUnavailable

__all__ = ["TfliteBuilder", "schema", "names", "VERSIONS"]

#: The operator versions that take int8 with per-channel scales (TFLite's op versioning).
VERSIONS = {"CONV_2D": 3, "DEPTHWISE_CONV_2D": 3, "PAD": 2, "GATHER": 2, "SPACE_TO_DEPTH": 2}


def schema():
    """The TFLite schema's generated Python (``tflite-micro``'s copy)."""
    try:
        from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S
    except ImportError:
        raise EngineUnavailable(
            "tflite-micro (which writes TFLite models) is not installed: pip install "
            "'waiexport[tflite]'"
        ) from None
    return S


@cache
def names(enum: str) -> dict[int, str]:
    """The schema enum ``enum``'s names by value (``"TensorType"``: 9 → ``"INT8"``;
    ``"BuiltinOperator"``)."""
    return {v: k for k, v in vars(getattr(schema(), enum)).items() if not k.startswith("_")}


class TfliteBuilder:
    """One subgraph's tensors, buffers and operators, and the model they make."""

    def __init__(self):
        self.S = schema()
        self.tensors: list = []
        self.buffers: list = [self.S.BufferT()]  # buffer 0: empty, as the schema asks
        self.ops: list = []
        self.codes: dict = {}  # builtin code → its index in the operator codes
        self.inputs: list[int] = []
        self.outputs: list[int] = []
        self.shapes: dict[int, list] = {}

    def tensor(self, shape, dtype: str = "INT8", data=None, scales=None, axis: int = 0) -> int:
        """A tensor (a constant where ``data`` is given) of ``shape``, quantized at ``scales``
        (1 where not given) with zero point 0; its index."""
        S = self.S
        t = S.TensorT()
        t.shape = [int(d) for d in shape]
        t.type = getattr(S.TensorType, dtype)
        t.buffer = 0
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8).tolist()
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        q = S.QuantizationParametersT()
        q.scale = [float(v) for v in np.atleast_1d(1.0 if scales is None else scales)]
        q.zeroPoint = [0] * len(q.scale)
        q.quantizedDimension = axis
        t.quantization = q
        t.name = f"t{len(self.tensors)}".encode()
        self.tensors.append(t)
        self.shapes[len(self.tensors) - 1] = t.shape
        return len(self.tensors) - 1

    def dtype(self, x: int) -> str:
        """Tensor ``x``'s type by the schema's name (``"INT8"``, ``"INT16"``, …)."""
        return names("TensorType")[self.tensors[x].type]

    def op(self, code: str, inputs: list[int], outputs: list[int], options=None, kind=None):
        """An operator ``code`` (a builtin's name) with its options object."""
        S = self.S
        builtin = getattr(S.BuiltinOperator, code)
        self.codes.setdefault(builtin, len(self.codes))
        o = S.OperatorT()
        o.opcodeIndex = self.codes[builtin]
        o.inputs, o.outputs = list(inputs), list(outputs)
        if options is not None:
            o.builtinOptionsType = getattr(S.BuiltinOptions, kind)
            o.builtinOptions = options
        self.ops.append(o)

    def serialize(self, description: str) -> bytes:
        import flatbuffers  # the tflite extra's, as the schema is

        S = self.S
        sg = S.SubGraphT()
        sg.tensors, sg.inputs, sg.outputs, sg.operators = (
            self.tensors,
            self.inputs,
            self.outputs,
            self.ops,
        )
        sg.name = b"main"
        m = S.ModelT()
        m.version = 3
        codes = sorted(self.codes, key=self.codes.get)
        m.operatorCodes = []
        ops = names("BuiltinOperator")
        for builtin in codes:
            oc = S.OperatorCodeT()
            oc.builtinCode = oc.deprecatedBuiltinCode = builtin
            oc.version = VERSIONS.get(ops[builtin], 1)
            m.operatorCodes.append(oc)
        m.subgraphs, m.buffers = [sg], self.buffers
        m.description = description.encode()
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())
