"""Probes of an ONNX runtime under test: tiny ONNX models, one per operator and type our
models use, at values that name a failure class when the answer is wrong. A runtime's own report of
a node's precision is not proof (OpenVINO 2026.4.1 reports ``i32`` for ``ReduceSum`` and
``Div`` and computes them through float32), so each probe asks for a value:

- **float32 accumulation**: an odd sum past 2^24 (float32 holds every integer up to 2^24
  only), from ``MatMulInteger``, ``ConvInteger``, ``MatMul``, ``ReduceSum``, ``CumSum``, and the
  elementwise operators at ``2^30 + 1``;
- **int64 narrowed to int32**: int64 products, sums and quotients past 2^31, alone and after
  a ``Cast`` from int32 with int64 constants below 2^31; and that chain with constants past
  int32 (:data:`WIDE_CONSTANT`: tract 0.23.9 narrows them, 2^31 becomes −2^31), and with a
  ``Mul`` of the value by itself (:data:`SQUARE`: tract 0.23.9 fails it);
- **rounding to nearest after fusion**: a ``MatMulInteger`` followed by ``Add`` and ``Div``,
  the requantisation's shape, on a quotient whose fraction is a half or more (a runtime that
  fuses them into a float op and rounds gets one more);
- **fused into one float32 clamp** (:data:`FUSED`): the patterns our lowerings emit, as
  the runtime compiles them with their neighbours: ``Min`` then ``Max`` (a ``clamp``'s
  bounds) past 2^24 where a bound is no float32 value (OpenVINO 2026.4.1 fuses the pair
  into one Clamp whose bounds go through float32), and the same pair split by a
  ``BitwiseOr`` with 0, the form the export takes where the pair is not exact;
- **a floor shift by bits fused into float32** (:data:`BIT_FLOOR`): the int32 limbs'
  division where int32 ``Div`` goes through float, at the int32 ends;
- **a split's views read wrong** (:data:`VIEWS`): a convolution's rows cut from its flat
  input by ``Split`` at overlapping offsets, read by the chain's ``Mul`` and ``Add``, as a
  runtime that splits in place (OpenVINO) compiles them;
- **int16 pair saturation** (:data:`SATURATION`): ``MatMulInteger`` u8×s8 at the worst cases
  of our digits (128 × ±128, 255 × ±64) and weight sign parts, either operand the constant;
  where it is wrong the export takes u8×u8 ``ConvInteger`` instead.

A wrong probe means no claim for what uses that operator (§6 leaves no conforming path
through float): a model that uses it fails its decodes with the probe's words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Probe",
    "Joined",
    "PROBES",
    "SATURATION",
    "used",
    "typed_nodes",
    "FLOAT32",
    "NARROWED",
    "NEAREST",
    "FUSED",
    "WRITTEN",
    "CLAMP",
    "SPLIT_CLAMP",
    "FOLDED",
    "SUM_TREE",
    "BIT_FLOOR",
    "VIEWS",
    "VIEWED",
    "WIDE_CONSTANT",
    "SQUARE",
    "folded_patterns",
    "addressing",
]

FLOAT32, NARROWED, NEAREST, PAIRS, CAST, FUSED, WRITTEN, VIEWED = (
    "float32 accumulation",
    "int64 narrowed to int32",
    "rounding to nearest after fusion",
    "int16 pair saturation",
    "int64 narrowed to int32 after a Cast from int32",
    "fused into one float32 clamp",
    "a folded constant written into",
    "a split's view read wrong",
)
#: The names, as operators, of the two patterns of a clamp (:func:`_clamps`).
CLAMP, SPLIT_CLAMP = "Min-Max", "Min-BitwiseOr-Max"
#: A constant the runtime folds from ``Expand`` at fixed shapes, read by a bitwise operator:
#: OpenVINO's CPU plugin then writes the next node's result into the constant, so it changes
#: from one inference to the next (measured; its probe runs twice, :data:`WRITTEN`).
FOLDED = "Expand-BitwiseOr"
#: A product then sums, the runtime targets' convolution (a chain of ``Mul`` of strided
#: windows and ``Add`` to the running sum, then ``Add`` of halves), as a compiler fuses it.
SUM_TREE = "Mul-Add-Add"
#: A floor shift by bits (:func:`.limbs.bit_floor_shift`: each bit by ``BitwiseAnd``, capped
#: at its weight by ``Min``, the sign's by ``Max``, summed by ``Add``), the int32 limbs'
#: division on a runtime whose int32 ``Div`` goes through float, as its compiler fuses it.
BIT_FLOOR = "BitwiseAnd-Min-Add"
#: A convolution's rows as views of its flat input (:func:`.mac.elementwise.elementwise_sum`
#: at stride 1): one ``Split`` a tap, at the tap's offset, each view reshaped and read by the
#: chain's ``Mul``, then ``Add``; OpenVINO splits in place, so its views share one buffer.
VIEWS = "Split-Mul-Add"
#: An int64 constant past int32 that a value-computing node reads, as a target's
#: description names it (an operator on int64) where its runtime narrows such a constant
#: (tract 0.23.9 after a ``Cast`` from int32, 2^31 becoming −2^31; measured): its lowerings
#: then form none (:func:`.requant.requantise` shifts in steps of at most 30 bits), and
#: :func:`typed_nodes` names each node that still reads one.
WIDE_CONSTANT = "Constant past int32"
#: A ``Mul`` of a value by itself, as a target's description names it where its runtime
#: fails one on int64 (tract 0.23.9 runs it as ``Square``, which does not take its int64
#: values: "Square does not support TDim"; measured): :func:`.requant.square` then
#: forms ``x·(x + 1) − x``, and :func:`typed_nodes` names each node that is still one.
SQUARE = "Mul of a value by itself"
#: numpy's types by ONNX's names for them (``TensorProto``'s, looked up when a model is built:
#: a load whose probes' models are kept on disk imports no onnx, targets/stored.py).
_TYPES = {
    np.dtype(np.int8): "INT8",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint64): "UINT64",
    np.dtype(np.bool_): "BOOL",
}


def _onnx_type(dtype) -> int:
    from onnx import TensorProto  # onnx: kept probe models need none

    return getattr(TensorProto, _TYPES[np.dtype(dtype)])


@dataclass(frozen=True)
class Probe:
    """One probe: the failure class it names, the operator and input type it covers, its
    model's nodes and constants, its inputs and the exact output."""

    failure: str
    op: str
    dtype: str
    nodes: tuple
    consts: dict
    feed: dict
    want: np.ndarray
    runs: int = 1  # the same feed this many times, the last output judged

    @property
    def name(self) -> str:
        return f"{self.op} {self.dtype}: {self.failure}"

    def model(self) -> bytes:
        return _model([self.parts()])

    def parts(self, prefix: str = "") -> tuple:
        """The probe's nodes, constants, inputs and output, as onnx builds them, every name
        prefixed by ``prefix``."""
        from onnx import helper, numpy_helper  # onnx: kept probe models need none

        inputs = [
            helper.make_tensor_value_info(prefix + k, _onnx_type(v.dtype), v.shape)
            for k, v in self.feed.items()
        ]
        out = helper.make_tensor_value_info(
            prefix + "out0", _onnx_type(self.want.dtype), self.want.shape
        )
        inits = [numpy_helper.from_array(v, prefix + k) for k, v in self.consts.items()]
        nodes = [
            helper.make_node(
                n[0],
                [prefix + i for i in n[1]],
                [prefix + o for o in n[2]],
                **{
                    k: _onnx_type(v) if k == "to" else v
                    for k, v in (n[3] if len(n) > 3 else {}).items()
                },
            )
            for n in self.nodes
        ]
        return nodes, inits, inputs, [out]

    def wrong(self, got) -> str | None:
        """What a wrong answer ``got`` says, or ``None`` for the exact one."""
        got = np.asarray(got)
        if got.shape == self.want.shape and (got.astype(object) == self.want.astype(object)).all():
            return None
        first = got.reshape(-1)[0] if got.size else "nothing"
        return (
            f"{self.failure}: {self.op} on {self.dtype} gives {first}, exact is "
            f"{self.want.reshape(-1)[0]}"
        )


def _model(parts: list) -> bytes:
    """One ONNX model of the probes' ``parts`` (:meth:`Probe.parts`)."""
    from onnx import helper  # onnx: a load whose probe models are kept imports none

    g = helper.make_graph(
        [n for p in parts for n in p[0]],
        "probe",
        [i for p in parts for i in p[2]],
        [o for p in parts for o in p[3]],
        [c for p in parts for c in p[1]],
    )
    return helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 21)], ir_version=10
    ).SerializeToString()


@dataclass(frozen=True)
class Joined:
    """Every probe of ``probes`` in one model, the names of the ``i``-th prefixed by
    ``p<i>.``: a runtime opens one model where each probe alone is one (a session each,
    about a millisecond apiece on onnxruntime, measured)."""

    probes: tuple

    @property
    def name(self) -> str:
        return "joined: " + "; ".join(p.name for p in self.probes)

    @property
    def feed(self) -> dict:
        return {f"p{i}.{k}": v for i, p in enumerate(self.probes) for k, v in p.feed.items()}

    @property
    def runs(self) -> int:
        return max(p.runs for p in self.probes)

    def model(self) -> bytes:
        return _model([p.parts(f"p{i}.") for i, p in enumerate(self.probes)])

    def exact(self, outputs: dict) -> set[str]:
        """The names of the probes whose output in ``outputs`` (by name) is exact."""
        return {
            p.name
            for i, p in enumerate(self.probes)
            if f"p{i}.out0" in outputs and p.wrong(outputs[f"p{i}.out0"]) is None
        }


def _two(op, a, b, want, dtype, failure=FLOAT32, **attrs):
    a, b = np.array([a], dtype), np.array([b], dtype)
    return Probe(
        failure,
        op,
        np.dtype(dtype).name,
        (((op, ["x", "y"], ["out0"], attrs)),),
        {},
        {"x": a, "y": b},
        np.array([want], np.bool_ if op in ("Equal", "Greater", "Less") else dtype),
    )


def _probes() -> tuple:
    out = []
    # 1030 products of 255 x 64 and one of 1 x 1: an odd sum past 2^24, of products no larger
    # than our digits' (SATURATION's), so an AVX2 kernel's pairs of 255 x 127, which saturate
    # in int16 and which no model of ours multiplies, do not fail it
    x = np.array([[255] * 1030 + [1]], np.uint8)
    ws8 = np.array([[64]] * 1030 + [[1]], np.int8)
    out.append(_saturation())
    out.append(
        Probe(
            FLOAT32,
            "MatMulInteger",
            "uint8",
            (("MatMulInteger", ["x", "w"], ["out0"]),),
            {"w": ws8},
            {"x": x},
            (x.astype(np.int64) @ ws8.astype(np.int64)).astype(np.int32),
        )
    )
    wu8 = np.array([[[[255]]] * 1025], np.uint8).reshape(1, 1025, 1, 1)
    xc = np.array([255] * 1024 + [1], np.uint8).reshape(1, 1025, 1, 1)
    out.append(
        Probe(
            FLOAT32,
            "ConvInteger",
            "uint8",
            (("ConvInteger", ["x", "w"], ["out0"]),),
            {"w": wu8},
            {"x": xc},
            np.array([[[[255 * 255 * 1024 + 255]]]], np.int32),
        )
    )
    # the weights-first product's ConvInteger: an int8 x against u8 weight sign parts of at
    # most 128, pairs of 128 x -128 and 128 x 127 (which an int16 pair still holds) and one
    # of 1 x -1: -2^24 - 1, odd past 2^24
    xs8 = np.array([-128] * 1024 + [127, -1], np.int8).reshape(1, 1026, 1, 1)
    wc = np.array([128] * 1024 + [0, 1], np.uint8).reshape(1, 1026, 1, 1)
    out.append(
        Probe(
            FLOAT32,
            "ConvInteger",
            "int8",
            (("ConvInteger", ["x", "w"], ["out0"]),),
            {"w": wc},
            {"x": xs8},
            np.array([[[[-(1 << 24) - 1]]]], np.int32),
        )
    )
    for dtype, big in ((np.int32, (1 << 24) + 1), (np.int64, (1 << 40) + 1)):
        a = np.array([[big, 1]], dtype)
        b = np.array([[1], [1]], dtype)
        out.append(
            Probe(
                NARROWED if dtype == np.int64 else FLOAT32,
                "MatMul",
                np.dtype(dtype).name,
                (("MatMul", ["x", "y"], ["out0"]),),
                {},
                {"x": a, "y": b},
                np.array([[big + 1]], dtype),
            )
        )
    r = np.full((1, 64), (1 << 24) + 1, np.int32)
    out.append(
        Probe(
            FLOAT32,
            "ReduceSum",
            "int32",
            (("ReduceSum", ["x", "axes"], ["out0"], {"keepdims": 0}),),
            {"axes": np.array([1], np.int64)},
            {"x": r},
            np.array([64 * ((1 << 24) + 1)], np.int32),
        )
    )
    out.append(
        Probe(
            NARROWED,
            "ReduceSum",
            "int64",
            (("ReduceSum", ["x", "axes"], ["out0"], {"keepdims": 0}),),
            {"axes": np.array([1], np.int64)},
            {"x": r.astype(np.int64) << 16},
            np.array([64 * ((1 << 24) + 1) << 16], np.int64),
        )
    )
    out.append(
        Probe(
            FLOAT32,
            "CumSum",
            "int32",
            (("CumSum", ["x", "axis"], ["out0"]),),
            {"axis": np.array(1, np.int64)},
            {"x": r},
            np.cumsum(r, axis=1, dtype=np.int64).astype(np.int32),
        )
    )
    top = (1 << 30) + 1
    for dtype in (np.int32, np.int64):
        b = top if dtype == np.int32 else (1 << 40) + 1
        fail = FLOAT32 if dtype == np.int32 else NARROWED
        out += [
            _two("Add", b, 2, b + 2, dtype, fail),
            _two("Sub", b, -2, b + 2, dtype, fail),
            _two("Mul", b, 1, b, dtype, fail),
            _two("Div", b, 3, b // 3, dtype, fail),
            _two("Mod", -b, 3, -b % 3, dtype, fail, fmod=0),
            _two("Max", b, b - 1, b, dtype, fail),
            _two("Min", b, b + 1, b, dtype, fail),
            _two("Equal", b, b - 1, False, dtype, fail),
            _two("Greater", b, b - 1, True, dtype, fail),
        ]
    out.append(_two("BitwiseAnd", top + 2, top + 1, top + 1, np.int32))
    # a bound past 2^24 (OpenVINO 2026.4.1 takes Clip's bounds through float32: 2^30)
    out.append(
        Probe(
            FLOAT32,
            "Clip",
            "int32",
            (("Clip", ["x", "lo", "hi"], ["out0"]),),
            {"lo": np.array(-top - 2, np.int32), "hi": np.array(top + 2, np.int32)},
            {"x": np.array([top + 12345], np.int32)},
            np.array([top + 2], np.int32),
        )
    )
    # int32 → int64, an operation with an int64 constant below 2^31 on a value past it, an
    # operation back into int32 range, → int32: a runtime that computes the chain in int32
    # wraps (tract 0.23.9's floor modulo there takes the dividend's sign), or whose Div by
    # a power of two floors a negative quotient where ONNX truncates it; and the chain
    # with constants past int32 (WIDE_CONSTANT), which tract 0.23.9 narrows (2^31 becomes
    # −2^31) where it computes the chain with small ones exactly; and a square (SQUARE),
    # which tract 0.23.9 fails
    x = (1 << 30) + 1
    for label, chain, want in (
        ("Mul", (("Mul", 3), ("Div", 1 << 20)), x * 3 >> 20),
        ("Add", (("Add", (1 << 31) - 1), ("Div", 2)), (x + (1 << 31) - 1) >> 1),
        ("Sub", (("Sub", -(1 << 31)), ("Div", 2)), (x + (1 << 31)) >> 1),
        ("Div", (("Mul", -3), ("Div", 1 << 20)), -((3 * x) >> 20)),
        ("Mod", (("Mul", -3), ("Mod", 7)), -3 * x % 7),
        (
            WIDE_CONSTANT,
            (("Add", 1 << 31), ("Mul", 3), ("Div", (1 << 32) + 2)),
            (x + (1 << 31)) * 3 // ((1 << 32) + 2),
        ),
        (SQUARE, (("Mul", None), ("Div", 1 << 30)), x * x >> 30),
    ):
        out.append(_cast_chain(label, chain, x, want))
    out.append(
        _two("BitShift", (1 << 30) + 5, 1, ((1 << 30) + 5) >> 1, np.uint32, direction="RIGHT")
    )
    out.append(
        _two(
            "BitShift",
            (1 << 40) + 5,
            1,
            ((1 << 40) + 5) >> 1,
            np.uint64,
            NARROWED,
            direction="RIGHT",
        )
    )
    out += _clamps()
    out.append(_folded())
    out.append(_sum_tree())
    out.append(_bit_floor())
    out.append(_views())
    # MatMulInteger → Add → Div, the requantisation's shape: 7 // 2 is 3, nearest gives 4
    out.append(
        Probe(
            NEAREST,
            "Div",
            "int32",
            (
                ("MatMulInteger", ["x", "w"], ["s"]),
                ("Add", ["s", "b"], ["t"]),
                ("Div", ["t", "d"], ["out0"]),
            ),
            {
                "w": np.array([[1]], np.int8),
                "b": np.array([0], np.int32),
                "d": np.array([2], np.int32),
            },
            {"x": np.array([[7]], np.uint8)},
            np.array([[3]], np.int32),
        )
    )
    return tuple(out)


def _cast_chain(label: str, chain: tuple, x: int, want: int) -> Probe:
    """``x`` cast from int32 to int64, each ``(operator, int64 constant)`` of ``chain`` in
    turn (a constant ``None``: the value itself), cast back to int32 (:data:`CAST`), as the
    probe of ``label`` on int64."""
    names = ["w"] + [f"v{k}" for k in range(len(chain) - 1)] + ["u"]
    return Probe(
        CAST,
        label,
        "int64",
        (
            ("Cast", ["x"], ["w"], {"to": np.int64}),
            *(
                (op, [a, a if c is None else f"k{k}"], [b])
                for k, ((op, c), a, b) in enumerate(zip(chain, names, names[1:]))
            ),
            ("Cast", ["u"], ["out0"], {"to": np.int32}),
        ),
        {f"k{k}": np.array([c], np.int64) for k, (_, c) in enumerate(chain) if c is not None},
        {"x": np.array([x], np.int32)},
        np.array([want], np.int32),
    )


def _clamps() -> list[Probe]:
    """A clamp's two patterns (:data:`CLAMP`, :data:`SPLIT_CLAMP`) on int32, each bound past
    2^24 and no float32 value, on the values each side of both bounds and the int32 ends."""
    lo, hi = 1671950263, 1702881760  # float32 gives 1671950208 and 1702881792
    x = np.array([lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, 0, (1 << 31) - 1, -(1 << 31)], np.int32)
    want = np.clip(x, lo, hi).astype(np.int32)
    bounds = {
        "lo": np.array(lo, np.int32),
        "hi": np.array(hi, np.int32),
        "zero": np.array(0, np.int32),
    }
    pair = (("Min", ["x", "hi"], ["a"]), ("Max", ["a", "lo"], ["out0"]))
    split = (
        ("Min", ["x", "hi"], ["a"]),
        ("BitwiseOr", ["a", "zero"], ["b"]),
        ("Max", ["b", "lo"], ["out0"]),
    )
    return [
        Probe(FUSED, CLAMP, "int32", pair, bounds, {"x": x}, want),
        Probe(FUSED, SPLIT_CLAMP, "int32", split, bounds, {"x": x}, want),
    ]


def _sum_tree() -> Probe:
    """A convolution's sum as the runtime targets' lowering emits it, a product added to a
    running sum and that to another (:data:`SUM_TREE`), on int32 products and sums past 2^24
    that are no float32 values: a runtime that fuses the chain into one float32 kernel
    rounds them."""
    x = np.array([(1 << 24) + 1, -(1 << 24) - 1, 12345679], np.int32)
    w = np.array([3, 5, 7], np.int32)
    y, z = np.array([1, 3, 5], np.int32), np.array([(1 << 30) - 3, 7, -9], np.int32)
    want = (x.astype(np.int64) * w + y + z).astype(np.int32)
    return Probe(
        FLOAT32,
        SUM_TREE,
        "int32",
        (("Mul", ["x", "w"], ["p"]), ("Add", ["p", "y"], ["s"]), ("Add", ["s", "z"], ["out0"])),
        {"w": w, "z": z},
        {"x": x, "y": y},
        want,
    )


def _bit_floor() -> Probe:
    """``⌊x / 2^7⌋`` by bits (:data:`BIT_FLOOR`) on the int32 ends and values past 2^24 that
    are no float32 values: a runtime that fuses the chain into float32 rounds them."""
    x = np.array(
        [-(1 << 31), -(1 << 31) + 1, -1, 0, 1, (1 << 31) - 1, (1 << 30) + 1, -(1 << 24) - 3],
        np.int32,
    )
    nodes, consts, total = [], {"sign": np.array(-(1 << 31), np.int32)}, None
    for j in range(7, 32):
        bit, cap, out = f"b{j}", f"c{j}", f"t{j}"
        if j < 31:
            consts[bit] = np.array(1 << j, np.int32)
            consts[cap] = np.array(1 << (j - 7), np.int32)
            nodes += [("BitwiseAnd", ["x", bit], [f"a{j}"]), ("Min", [f"a{j}", cap], [out])]
        else:
            consts[cap] = np.array(-(1 << 24), np.int32)
            nodes += [("BitwiseAnd", ["x", "sign"], ["a31"]), ("Max", ["a31", cap], [out])]
        if total is not None:
            nodes.append(("Add", [total, out], ["out0" if j == 31 else f"s{j}"]))
        total = f"s{j}" if total is not None else out
    return Probe(
        FLOAT32, BIT_FLOOR, "int32", tuple(nodes), consts, {"x": x}, (x >> 7).astype(np.int32)
    )


def _views() -> Probe:
    """Two taps' rows of a flat ``[1, 3, 3, 3]`` (two channels and a zero one) as the
    lowering cuts them (:data:`VIEWS`): at offsets 0 and 4, two channels a view, each times
    its weights and the two added, run twice; values past 2^24, so a view read from
    another offset, or a buffer reused under it, shows."""
    x = ((np.arange(27, dtype=np.int64) * 7919 + (1 << 24)) % (1 << 26)).astype(np.int32)
    x[18:] = 0
    w0 = np.array([3, -5, 7, 2], np.int32).reshape(1, 2, 2, 1, 1)
    w1 = np.array([-2, 9, 4, -6], np.int32).reshape(1, 2, 2, 1, 1)
    v0, v1 = x[:18].reshape(1, 1, 2, 1, 9), x[4:22].reshape(1, 1, 2, 1, 9)
    want = (v0.astype(np.int64) * w0 + v1.astype(np.int64) * w1).astype(np.int32)
    return Probe(
        VIEWED,
        VIEWS,
        "int32",
        (
            ("Split", ["x", "first"], ["a0", "a1"], {"axis": 1}),
            ("Split", ["x", "second"], ["b0", "b1", "b2"], {"axis": 1}),
            ("Reshape", ["a0", "shape"], ["r0"]),
            ("Reshape", ["b1", "shape"], ["r1"]),
            ("Mul", ["r0", "w0"], ["p0"]),
            ("Mul", ["r1", "w1"], ["p1"]),
            ("Add", ["p0", "p1"], ["out0"]),
        ),
        {
            "first": np.array([18, 9], np.int64),
            "second": np.array([4, 18, 5], np.int64),
            "shape": np.array([1, 1, 2, 1, 9], np.int64),
            "w0": w0,
            "w1": w1,
        },
        {"x": x.reshape(1, 27)},
        want,
        runs=2,
    )


def _folded() -> Probe:
    """A constant ``Expand``ed to the input's shape, through a ``BitwiseOr`` with 0, added
    to an input, run twice: a runtime that folds the constant and writes the sum into it
    gives 207, not 107, the second time (:data:`FOLDED`)."""
    return Probe(
        WRITTEN,
        FOLDED,
        "int32",
        (
            ("Shape", ["x"], ["s"]),
            ("Expand", ["c", "s"], ["e"]),
            ("BitwiseOr", ["e", "zero"], ["o"]),
            ("Add", ["o", "y"], ["out0"]),
        ),
        {"c": np.array([7], np.int32), "zero": np.array([0], np.int32)},
        {"x": np.zeros((1, 2, 2, 2), np.int32), "y": np.full((1, 2, 2, 2), 100, np.int32)},
        np.full((1, 2, 2, 2), 107, np.int32),
        runs=2,
    )


def _saturation() -> Probe:
    """u8×s8 pairs of ``128 × −128`` and ``128 × 127``, and of ``255 × ±64``: what an AVX2
    kernel that adds pairs of products in int16 still holds (255 × 127 saturates,
    measured). Every way our models use it, the three products side by side: the u8
    operand fed and the s8 one a constant at both ends (:func:`.mac.nhwc.im2col_sum`, base-128
    and base-256 digits), and the u8 operand a constant and the s8 one fed
    (:func:`.mac.weights_first.weights_first_sum`)."""

    def pairs(top: int, w: int):
        x = np.array([[top] * 64, [top, 0] * 32, [1] * 64, [top] * 64], dtype=np.uint8)
        ws = np.stack(
            [
                np.full(64, -w),
                np.full(64, min(w, 127)),
                np.arange(64) * w // 32 - w,
                np.resize([min(w, 127), -w], 64),
            ],
            axis=1,
        ).astype(np.int8)
        return x, ws, (x.astype(np.int64) @ ws.astype(np.int64)).astype(np.int32)

    (x, w, want), (x2, w2, want2) = pairs(128, 128), pairs(255, 64)
    return Probe(
        PAIRS,
        "MatMulInteger",
        "uint8",
        (
            ("MatMulInteger", ["x", "w"], ["fed"]),
            ("MatMulInteger", ["a", "b"], ["held"]),
            ("MatMulInteger", ["x2", "w2"], ["wide"]),
            ("Concat", ["fed", "held", "wide"], ["out0"], {"axis": 1}),
        ),
        {"w": w, "a": x, "w2": w2},
        {"x": x, "b": w, "x2": x2},
        np.concatenate([want, want, want2], axis=1),
    )


PROBES = _probes()
#: The name of the u8×s8 probe, whose answer chooses the export's MAC path.
SATURATION = PROBES[0].name


def typed_nodes(model) -> list[tuple[str, str, str]]:
    """Each node of an ONNX model (and of its ``If`` branches) that computes a graph value,
    as ``(name, operator, its first input's type)``, the types inferred; a node of sizes
    alone (from ``Shape`` or ``Size`` and constants, a tensor's dimensions, each below 2^31)
    is left out, since no runtime's narrowing of those can change a value; so is a node
    whose results only address a tensor (:func:`_addressing`: a crop's window from scalars,
    within the tensor's sides, §5.10; a gather's positions). A node that reads an int64
    constant past int32 where it computes (not where it addresses) is listed again as
    ``(name, WIDE_CONSTANT, "int64")``, and a ``Mul`` of a value by itself as
    ``(name, SQUARE, its type)``."""
    import onnx  # onnx: a load whose probe models are kept imports none
    from onnx import helper
    from .emit import graphs, subgraph_nodes

    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    every = list(graphs(inferred.graph))
    types = {
        v.name: v.type.tensor_type.elem_type
        for g in every
        for v in list(g.value_info) + list(g.input) + list(g.output)
    }
    types.update({t.name: t.data_type for t in inferred.graph.initializer})
    names = {v: np.dtype(helper.tensor_dtype_to_np_dtype(v)).name for v in set(types.values()) if v}
    out, sizes, addressing = [], set(), _addressing(inferred)
    wide = _wide_constants(inferred)
    constant = {t.name for t in inferred.graph.initializer} | {
        o for n in subgraph_nodes(inferred.graph.node) if n.op_type == "Constant" for o in n.output
    }
    for n in subgraph_nodes(inferred.graph.node):
        given = [i for i in n.input if i]
        if n.op_type in ("Shape", "Size") or (
            n.op_type not in _DATA
            and any(i in sizes for i in given)
            and all(i in sizes or i in constant for i in given)
        ):
            sizes.update(n.output)
        elif given and n.name not in addressing:
            typed = names.get(types.get(n.input[0]), "")
            out.append((n.name, n.op_type, typed))
            if any(
                i in wide and k not in _ADDRESS.get(n.op_type, ()) for k, i in enumerate(n.input)
            ):
                out.append((n.name, WIDE_CONSTANT, "int64"))
            if n.op_type == "Mul" and n.input[0] == n.input[1]:
                out.append((n.name, SQUARE, typed))
    return out


def _wide_constants(model) -> set[str]:
    """The int64 initializers of ``model`` with a value past int32 (:data:`WIDE_CONSTANT`)."""
    from onnx import TensorProto, numpy_helper  # onnx: kept probe models need none

    return {
        t.name
        for t in model.graph.initializer
        if t.data_type == TensorProto.INT64 and not _within_i32(numpy_helper.to_array(t))
    }


def _within_i32(a: np.ndarray) -> bool:
    """Whether every value of ``a`` fits int32."""
    return not a.size or (-(1 << 31) <= int(a.min()) and int(a.max()) < 1 << 31)


#: The inputs of an operator that address a tensor (its bounds, shape or pads), by position.
_ADDRESS = {
    "Gather": {1},
    "Slice": {1, 2, 3, 4},
    "Reshape": {1},
    "Expand": {1},
    "Tile": {1},
    "Pad": {1},
    "Squeeze": {1},
    "Unsqueeze": {1},
}


def addressing(model, names: list[str]) -> list[str]:
    """Those of the tensors ``names`` (a model's inputs, say) that only address a tensor:
    every reader reads them where it addresses (:data:`_ADDRESS`) or is itself a node whose
    results only address (:func:`_addressing`)."""
    readers, found = _readers(model), _addressing(model)
    return [t for t in names if _addresses(t, readers, found)]


def _readers(model) -> dict:
    """Each tensor's readers: ``(node, the input position it reads the tensor at)``."""
    readers: dict = {}
    for n in model.graph.node:
        for k, i in enumerate(n.input):
            readers.setdefault(i, []).append((n, k))
    return readers


def _addresses(t: str, readers: dict, found: set) -> bool:
    """Whether ``t`` is read, and only where an operator addresses a tensor or by a node of
    ``found`` (whose results only address)."""
    return bool(readers.get(t)) and all(
        k in _ADDRESS.get(r.op_type, ()) or r.name in found for r, k in readers[t]
    )


def _addressing(model) -> set[str]:
    """The names of the nodes whose every result is read only where an operator addresses a
    tensor (:data:`_ADDRESS`) or by another such node, and whose constants fit int32: a
    value there is a position or a size, below 2^31 (the host refuses a window past the
    tensor's sides, §4 run step 3), so neither a runtime that narrows int64 to int32 nor
    one that narrows its int64 constants changes it. Graph outputs address nothing."""
    from onnx import numpy_helper  # onnx: a load whose probe models are kept imports none

    small = {t.name for t in model.graph.initializer if _within_i32(numpy_helper.to_array(t))}
    consts = {t.name for t in model.graph.initializer}
    readers, outputs = _readers(model), {o.name for o in model.graph.output}
    found: set = set()
    for n in reversed(model.graph.node):
        if (
            n.output
            and all(i in small or i not in consts for i in n.input if i)
            and all(o not in outputs and _addresses(o, readers, found) for o in n.output)
        ):
            found.add(n.name)
    return found


#: Operators that make data from sizes (a tensor of the model's values, not a size).
_DATA = frozenset({"ConstantOfShape", "Range", "Expand", "Tile"})


def used(model) -> set[tuple[str, str]]:
    """Each ``(operator, input type)`` an ONNX model uses (its first input's type, inferred),
    and each pattern it holds (:func:`clamp_patterns`, :func:`folded_patterns`)."""
    return (
        {(op, dtype) for _, op, dtype in typed_nodes(model)}
        | clamp_patterns(model)
        | folded_patterns(model)
        | bit_patterns(model)
        | view_patterns(model)
    )


def bit_patterns(model) -> set[tuple[str, str]]:
    """``{(BIT_FLOOR, "int32")}`` where a ``Min`` or ``Max`` of ``model`` reads a
    ``BitwiseAnd`` (:data:`BIT_FLOOR`), else nothing."""
    from .emit import subgraph_nodes  # onnx: a load whose probe models are kept imports none

    nodes = list(subgraph_nodes(model.graph.node))
    anded = {o for n in nodes if n.op_type == "BitwiseAnd" for o in n.output}
    reads = any(n.op_type in ("Min", "Max") and anded & set(n.input) for n in nodes)
    return {(BIT_FLOOR, "int32")} if reads else set()


def view_patterns(model) -> set[tuple[str, str]]:
    """``{(VIEWS, "int32")}`` where a ``Mul`` of ``model`` reads a ``Split``'s output
    reshaped (:data:`VIEWS`), else nothing."""
    from .emit import subgraph_nodes  # onnx: a load whose probe models are kept imports none

    nodes = list(subgraph_nodes(model.graph.node))
    cut = {o for n in nodes if n.op_type == "Split" for o in n.output}
    shaped = {o for n in nodes if n.op_type == "Reshape" and n.input[0] in cut for o in n.output}
    reads = any(n.op_type == "Mul" and shaped & set(n.input) for n in nodes)
    return {(VIEWS, "int32")} if reads else set()


def folded_patterns(model) -> set[tuple[str, str]]:
    """``{(FOLDED, its type)}`` where a bitwise operator of ``model`` reads a tensor a runtime
    folds at fixed shapes from an ``Expand`` of a constant: computed from constants and
    shapes alone, through that ``Expand`` (:data:`FOLDED`); else nothing."""
    from onnx import helper  # onnx: a load whose probe models are kept imports none
    from .emit import subgraph_nodes

    static = {t.name for t in model.graph.initializer}
    expanded: dict = {}  # a folded tensor downstream of an Expand: its constant's type
    types = {t.name: t.data_type for t in model.graph.initializer}
    found = set()
    for n in subgraph_nodes(model.graph.node):
        ins = [i for i in n.input if i]
        if n.op_type.startswith("Bitwise"):
            found |= {
                (FOLDED, np.dtype(helper.tensor_dtype_to_np_dtype(expanded[i])).name)
                for i in ins
                if i in expanded
            }
        if n.op_type == "Shape" or (ins and all(i in static for i in ins)):
            static.update(n.output)
            kind = (
                types.get(ins[0])
                if n.op_type == "Expand"
                else next((expanded[i] for i in ins if i in expanded), None)
            )
            if kind:
                expanded.update(dict.fromkeys(n.output, kind))
    return found


def clamp_patterns(model) -> set[tuple[str, str]]:
    """The clamps of ``model`` that a runtime could fuse into one float32 clamp: ``Min`` and
    ``Max`` of constant bounds one after the other, directly (:data:`CLAMP`) or through a
    ``BitwiseOr`` with 0 (:data:`SPLIT_CLAMP`), where a bound is no float32 value; as
    ``(pattern, the bounds' type)``."""
    from onnx import numpy_helper  # onnx: a load whose probe models are kept imports none
    from .emit import subgraph_nodes

    nodes = list(subgraph_nodes(model.graph.node))
    consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    consts.update(
        {
            n.output[0]: numpy_helper.to_array(a.t)
            for n in nodes
            if n.op_type == "Constant"
            for a in n.attribute
            if a.name == "value"
        }
    )
    made = {o: n for n in nodes for o in n.output}

    def bound(n) -> np.ndarray | None:
        return next((consts[i] for i in n.input if i in consts), None)

    def other(n):
        return next((made.get(i) for i in n.input if i not in consts), None)

    found = set()
    for n in nodes:
        if n.op_type not in ("Min", "Max") or bound(n) is None:
            continue
        before, pattern = other(n), CLAMP
        if (
            before is not None
            and before.op_type == "BitwiseOr"
            and bound(before) is not None
            and not bound(before).any()
        ):
            before, pattern = other(before), SPLIT_CLAMP
        if (
            before is None
            or before.op_type != ({"Min", "Max"} - {n.op_type}).pop()
            or bound(before) is None
        ):
            continue
        values = np.concatenate([bound(n).reshape(-1), bound(before).reshape(-1)])
        if (
            values.dtype.kind in "iu"
            and (values.astype(np.float32).astype(np.int64) != values).any()
        ):
            found.add((pattern, values.dtype.name))
    return found
