"""Target descriptions: what an accelerator's fixed-function units accept, as data.

Each target says, the way an NPU compiler documents its constraints: the MAC array's operand
widths, the requantisation unit's roundings, shift range, multiplier width and sign and whether
it adds a post bias, whether it has a transposed convolution, its depth-to-space channel order,
its padding modes, and whether it has a table lookup, a run-time row select and state kept
across decodes. The rewrite pipeline reads it to choose the exact rewrites of §9.3 and §9.4;
the exporter reads it to choose its mappings.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

__all__ = [
    "Target",
    "TARGETS",
    "target",
    "CRD",
    "DCR",
    "FormatOptions",
    "OnnxOptions",
    "QdqOptions",
]

CRD = "c·r² + i·r + j"  # §5.10's pixel_shuffle order (ONNX DepthToSpace mode CRD)
DCR = "(i·r + j)·C′ + c"  # ONNX DepthToSpace mode DCR


@dataclass(frozen=True)
class FormatOptions:
    """What a format's export reads of a target's runtime, beyond the hardware's limits: none
    by default."""

    def cannot(self, op: str, dtype: str) -> str | None:
        """Why the runtime cannot compute the format's ``op`` on ``dtype`` exactly, or
        ``None`` where it can."""
        return None

    def lines(self) -> list[str]:
        """The report's lines for these options."""
        return []


@dataclass(frozen=True)
class OnnxOptions(FormatOptions):
    """What the ONNX export reads of its runtime, measured by values (the probes,
    targets/onnx/probes.py)."""

    inexact: tuple = ()  # (operator, input type) pairs the runtime does not compute
    #                             exactly in integers, each with what it does instead
    lacks: tuple = ()  # operators the runtime does not take, with why
    conv_integer: bool = True  # the runtime takes ConvInteger (else convolutions go to
    #                             MatMulInteger or int32 MatMul over an im2col)
    nhwc_sums: bool = True  # a signed int8 conv whose sum a pixel_shuffle alone reads
    #                             takes the x-first product, for its NHWC sum (the realistic
    #                             int_synth 0.90x on onnxruntime, 2.2x on TVM untuned, measured)
    skips_digits: bool = False  # the runtime runs ONNX If: the x-first product's high digits
    #                             (gathers, GEMMs) run only where one is not 0 (onnxruntime)
    spread_scalars: bool = False  # a Mul or Div reads a one-element constant spread to its
    #                             other operand's shape: tract's optimiser ran for minutes on
    #                             one after a sum of GEMMs, and folds the spread one at once
    int32_windows: bool = False  # a crop's window from scalars is computed in int32 (a size,
    #                             within the sides): for a runtime that narrows int64
    #                             arithmetic and computes int32 windows exactly (OpenVINO;
    #                             tract fails its Slice of run-time int32 bounds, measured)

    def cannot(self, op: str, dtype: str) -> str | None:
        for (o, d), what in self.inexact:
            if o == op and d in (dtype, "*"):
                return f"{op} on {dtype}, which its runtime computes {what}"
        for o, why in self.lacks:
            if o == op:
                return f"{op}, which its runtime does not take ({why})"
        return None

    def lines(self) -> list[str]:
        return [
            f"  not exact:            {op} on {dtype}: {what}" for (op, dtype), what in self.inexact
        ] + [f"  not taken:            {op}: {why}" for op, why in self.lacks]


@dataclass(frozen=True)
class QdqOptions(FormatOptions):
    """What the QDQ export reads of an NPU's runtime, measured by values on the patterns it
    emits (shared notes, npu-runtimes)."""

    exact: bool = True  # exact scales (powers of two) and the limits below; False: a
    #                             generic export, one float32 scale m/2^s per requantisation
    #                             as quantisation tools write it, which claims nothing
    exponents: tuple = (-7, 23)  # the scales 2^-e the requantisation is exact at
    acc_limit: int = 1 << 24  # |acc + bias| stays below it (ties misround past it)
    per_channel_bias: bool = False  # per-channel scales beside a bias are exact
    one_type: bool = True  # a convolution's input and output must be one 8-bit type
    patterns: tuple = (
        "Conv",
        "Add",
        "Relu",
        "Abs",
        "Clip",
        "Identity",
        "Concat",
        "Slice",
        "Pad",
        "DepthToSpace",
    )  # the float operators of its QDQ patterns

    def lines(self) -> list[str]:
        if not self.exact:
            return [
                "  scales:               one float32 m/2^s per requantisation, as "
                "quantisation tools write them: no exactness claim"
            ]
        return [
            f"  exact scales:         2^{-self.exponents[1]} to 2^{-self.exponents[0]}, "
            f"|acc + bias| < 2^{self.acc_limit.bit_length() - 1}, 8-bit activations"
            + (", one type in and out of a convolution" if self.one_type else "")
            + (
                ""
                if self.per_channel_bias
                else ", one scale for every channel where a bias is present"
            ),
            f"  QDQ patterns:         {', '.join(self.patterns)}",
        ]


@dataclass(frozen=True)
class Target:
    """One accelerator's units."""

    name: str
    summary: str
    mac_bits: int  # the widest multiply operand the MAC array takes, in bits
    mac_signed: bool  # operands are signed (else unsigned only)
    roundings: tuple  # the requantisation unit's roundings (§2)
    shift_range: tuple  # (smallest, largest) shift
    mult_bits: int  # the multiplier's width, in bits
    mult_signed: bool  # a negative multiplier is accepted
    post_bias: bool  # the unit adds a bias after rounding
    transposed_conv: bool  # a transposed-convolution unit
    depth_to_space: str  # CRD or DCR
    padding: tuple  # "zero", "replicate"
    table_lookup: bool  # a 65,536-entry table (lut16)
    row_select: bool  # a multiplier row chosen at run time (chscale)
    state: bool  # a value kept across decodes (state inputs)
    mac_digits: bool = False  # wider operands are split into mac_bits digits at export
    act_bits: int = 0  # the widest activation operand, where wider than a weight
    #                             (mac_bits): 16 for TFLite's 16x8 kernels; 0: mac_bits
    fmt: str = "onnx"  # the model format the export writes: onnx or tosa
    engine: str = ""  # the engine that runs this target's models here ("": none)
    transposed_strides: tuple = ()  # the strides the transposed-convolution unit takes (all)
    max_in_channels: int = 0  # the most input channels a convolution takes (0: no limit)
    compiler: str = ""  # a compile step after the format, by name (vela), for an NPU
    compiler_config: str = ""  # the configuration it compiles for (Vela's
    #                             --accelerator-config)
    measured: str = ""  # where the limits come from
    subset: str = "npu"  # the graphs it takes: npu (wai-ops/1-npu) or full (all acc32)
    profile: str = "acc32"  # the profile its graphs meet: acc32, or acc64 (int64 tensors,
    #                             128-bit values where a certified interval passes 64 bits)
    checked_on: str = ""  # the engine that self-checks its exports where that is not
    #                             the format's judge: the target's own runtime
    side_limit: tuple = ()  # (the longest side of a tensor its runtime computes exactly,
    #                             what it does past it), measured; (): any side §3 allows
    options: FormatOptions = field(default_factory=OnnxOptions)
    #                             what one format's export reads of its runtime (fmt's)
    model_of: str = ""  # the target whose model this one's is, before its compile step
    #                             (a via target's: via), for an engine to run it

    def via(self, fmt: str) -> Target:
        """This target with its models written in ``fmt`` before its compile step (an Ethos-U
        target through TFLite rather than TOSA): the model of ``fmt``'s own target
        (:data:`VIA`), by its description, compiled by this one's compiler, which places
        what the NPU cannot run on the CPU; ``ValueError`` for a target that has none."""
        if not self.compiler:
            raise ValueError(
                f"target {self.name} is compiled by nothing after its format: "
                "--via is for one that is (an Ethos-U target)"
            )
        if fmt == self.fmt or fmt not in VIA:
            return replace(self, fmt=fmt)
        return replace(
            TARGETS[VIA[fmt]],
            name=self.name,
            summary=f"{self.summary}, through the {VIA[fmt]} target's {fmt} model",
            compiler=self.compiler,
            compiler_config=self.compiler_config,
            model_of=VIA[fmt],
        )

    @property
    def mult_range(self) -> tuple[int, int]:
        """The multipliers the unit takes: ``mult_bits``-bit signed, non-negative ones only
        when it is not ``mult_signed``."""
        top = (1 << (self.mult_bits - 1)) - 1
        return (-top - 1 if self.mult_signed else 0, top)

    def takes_transposed(self, p) -> bool:
        """Whether the unit runs the transposed convolution with parameters ``p`` itself."""
        return self.transposed_conv and (
            not self.transposed_strides
            or (p.sh in self.transposed_strides and p.sw in self.transposed_strides)
        )

    def report(self) -> str:
        """The supported-operators report: what the units accept, and what that leaves."""
        lo, hi = self.mult_range
        lines = [
            f"target {self.name}: {self.summary}",
            f"  MAC array:            {'signed' if self.mac_signed else 'unsigned'} operands of "
            f"up to {self.mac_bits} bits"
            + (f" (activations {self.act_bits})" if self.act_bits else "")
            + ", zero points 0"
            + ("; wider ones split into digits at export" if self.mac_digits else ""),
            f"  requantisation:       {', '.join(self.roundings)}; shifts "
            f"{self.shift_range[0]}..{self.shift_range[1]}; multipliers {lo}..{hi}; "
            f"post bias {'yes' if self.post_bias else 'no'}",
            "  transposed conv:      "
            + ("yes" if self.transposed_conv else "no: phase convolutions (§9.3)"),
            f"  depth-to-space order: {self.depth_to_space}",
            f"  padding:              {', '.join(self.padding)}",
            f"  table lookup:         {'yes' if self.table_lookup else 'no'}",
            f"  run-time row select:  {'yes' if self.row_select else 'no'}",
            f"  state across decodes: {'yes' if self.state else 'no'}",
            f"  model format:         {self.fmt}"
            + (
                f", compiled by {self.compiler.capitalize()} for {self.compiler_config}"
                if self.compiler
                else ""
            )
            + (
                f", run here by engine {self.engine}"
                if self.engine
                else "; no engine here runs it: its numerics are checked on a board or an FVP "
                "(waiexport vectors pack)"
            ),
        ]
        if self.transposed_strides:
            lines.insert(
                4, "  transposed strides:   " + ", ".join(map(str, self.transposed_strides))
            )
        if self.max_in_channels:
            lines.insert(4, f"  input channels:       at most {self.max_in_channels}")
        if self.side_limit:
            lines.append(
                f"  tensor sides:         at most {self.side_limit[0]:,}; past it "
                f"{self.side_limit[1]}"
            )
        lines += self.options.lines()
        if self.measured:
            lines.append(f"  limits from:          {self.measured}")
        return "\n".join(lines)


TARGETS = {
    t.name: t
    for t in (
        Target(
            name="ort-cpu",
            summary="onnxruntime's CPU execution provider, integer kernels only (our ONNX export): "
            "acc32, all of wai-ops/1-i32",
            mac_bits=64,
            mac_signed=True,
            roundings=("floor", "half_up", "half_even"),
            shift_range=(0, 63),
            mult_bits=64,
            mult_signed=True,
            post_bias=True,
            transposed_conv=False,
            depth_to_space=CRD,
            padding=("zero", "replicate"),
            table_lookup=True,
            row_select=True,
            state=True,
            engine="ort-cpu",
            subset="full",
            options=OnnxOptions(skips_digits=True),
        ),
        Target(
            name="npu-int8",
            summary="a strict fixed-function unit: 8-bit MACs, one half_up requantisation pattern",
            mac_bits=8,
            mac_signed=True,
            roundings=("half_up",),
            shift_range=(0, 31),
            mult_bits=32,
            mult_signed=False,
            post_bias=False,
            transposed_conv=False,
            depth_to_space=DCR,
            padding=("zero",),
            table_lookup=False,
            row_select=False,
            state=False,
            engine="npu-int8",
        ),
        Target(
            name="tosa",
            summary="TOSA 1.0 PRO-INT (RESCALE SINGLE_ROUND, scale32; int8 MACs into int32), as "
            "the TOSA reference model runs it and Vela and IREE compile it",
            mac_bits=8,
            mac_signed=True,
            roundings=("half_up",),
            shift_range=(0, 62),
            mult_bits=32,
            mult_signed=False,
            post_bias=True,
            transposed_conv=True,
            depth_to_space=CRD,
            padding=("zero",),
            table_lookup=True,
            row_select=True,
            state=True,
            mac_digits=True,
            fmt="tosa",
            engine="tosa-ref",
            options=FormatOptions(),
        ),
    )
}

TARGETS["ort-cpu-acc64"] = replace(
    TARGETS["ort-cpu"],
    name="ort-cpu-acc64",
    shift_range=(0, 127),
    engine="ort-cpu-acc64",
    profile="acc64",
    summary="onnxruntime's CPU execution provider as an acc64 fabric (our ONNX export): all of "
    "wai-ops/1, int64 tensors, exact 128-bit values from int64 limbs",
)
_TOSA = TARGETS["tosa"]
_VELA = (
    "Vela 5.2's supported-operator documentation and our measurements (shared notes; "
    "on U55, Vela 5.2 also refuses BITWISE_AND, GREATER_EQUAL, EQUAL and so SELECT, "
    "measured here: the lowerings use none of the first two)"
)

TARGETS.update(
    {
        t.name: t
        for t in (
            replace(
                _TOSA,
                name="ethos-u55-128",
                summary="Arm Ethos-U55, 128 MACs/cycle, through Vela: the tosa target without "
                "GATHER or EQUAL/SELECT, transposed strides 1 and 2",
                table_lookup=False,
                row_select=False,
                transposed_strides=(1, 2),
                max_in_channels=65536,
                engine="",
                compiler="vela",
                compiler_config="ethos-u55-128",
                measured=_VELA,
            ),
            replace(
                _TOSA,
                name="ethos-u85-256",
                summary="Arm Ethos-U85, 256 MACs/cycle, through Vela: the tosa target",
                max_in_channels=65536,
                engine="",
                compiler="vela",
                compiler_config="ethos-u85-256",
                measured=_VELA,
            ),
        )
    }
)


_QNN = (
    "QNN SDK 2.51 through onnxruntime-qnn 2.7.0, the HTP emulated on x86 (shared notes, "
    "npu-runtimes; probes of the patterns the export emits)"
)
TARGETS.update(
    {
        t.name: t
        for t in (
            Target(
                name="qnn-htp",
                summary="Qualcomm's Hexagon NPU (HTP) through onnxruntime's QNN execution "
                "provider (our QDQ export): int8 convolutions, power-of-two requantisations "
                "rounding half_up",
                mac_bits=8,
                mac_signed=True,
                roundings=("half_up",),
                shift_range=(0, 31),
                mult_bits=32,
                mult_signed=False,
                post_bias=False,
                transposed_conv=False,
                depth_to_space=CRD,
                padding=("zero", "replicate"),
                table_lookup=False,
                row_select=False,
                state=True,
                fmt="qdq",
                engine="qnn-htp",
                checked_on="qnn-htp",
                options=QdqOptions(),
                measured=_QNN,
            ),
        )
    }
)
TARGETS["tflm"] = replace(
    TARGETS["qnn-htp"],
    name="tflm",
    summary="TFLite int8 and 16x8 (our TFLite export) on TensorFlow Lite Micro's kernels: "
    "convolutions whose operands make each kernel's rounding the spec's half_up",
    fmt="tflite",
    engine="tflm",
    checked_on="tflm",
    padding=("zero",),
    transposed_conv=True,
    act_bits=16,
    options=FormatOptions(),
    measured="tflite-micro 0.dev20261023182759 by values (shared notes, npu-runtimes; "
    "tests/targets/test_tflite.py)",
)
TARGETS["litert"] = replace(
    TARGETS["tflm"],
    name="litert",
    summary="TFLite int8 (our TFLite export) on LiteRT's builtin kernels without the default "
    "delegate: the same model, whose operands make ruy's double rounding half_up too",
    engine="litert",
    checked_on="litert",
    measured="ai-edge-litert 2.3 by values (shared notes, npu-runtimes; "
    "tests/targets/test_tflite.py)",
)
TARGETS["onnx-qdq"] = replace(
    TARGETS["qnn-htp"],
    name="onnx-qdq",
    engine="",
    checked_on="",
    measured="",
    options=QdqOptions(exact=False),
    summary="a generic QDQ export (one float32 scale m/2^s per requantisation, as quantisation "
    "tools write it): the before row, which claims nothing on any engine",
)


_OV_FLOAT = "through float32 (exact only below 2^24)"
_OV_NARROW = "in int32 (int64 narrowed, it wraps)"
#: What OpenVINO 2026.4.1's CPU plugin computes through float or narrows, by values.
_OPENVINO_INEXACT = tuple(
    [((op, "uint8"), _OV_FLOAT) for op in ("MatMulInteger", "ConvInteger")]
    + [(("ConvInteger", "int8"), _OV_FLOAT)]
    + [
        ((op, "int32"), _OV_FLOAT)
        for op in ("MatMul", "ReduceSum", "Div", "Mod", "Equal", "Greater")
    ]
    + [
        (("BitShift", "uint32"), _OV_FLOAT),
        (("Clip", "int32"), "with its bounds through float32 (2^30 + 2 becomes 2^30)"),
        (
            ("Min-Max", "int32"),
            "as one Clamp, fused by its compiler, whose bounds go through "
            "float32 (1702881760 becomes 1702881792)",
        ),
        (
            ("Expand-BitwiseOr", "int32"),
            "by writing into the constant it folds from an Expand "
            "at fixed shapes, so a fill's value grows from one "
            "decode to the next",
        ),
    ]
    + [
        ((op, "int64"), _OV_NARROW)
        for op in (
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Mod",
            "Max",
            "Min",
            "MatMul",
            "ReduceSum",
            "Constant past int32",
            "Mul of a value by itself",
        )
    ]
    + [(("BitShift", "uint64"), _OV_NARROW)]
)
_MEASURED = (
    "measured by values on this kind of machine (AMD EPYC, AVX2, no VNNI), 2026-12, "
    "by the probes of targets/onnx/probes.py"
)

TARGETS.update(
    {
        t.name: t
        for t in (
            replace(
                TARGETS["ort-cpu"],
                name="openvino-cpu",
                engine="openvino-cpu",
                checked_on="openvino-cpu",
                options=OnnxOptions(inexact=_OPENVINO_INEXACT, int32_windows=True),
                summary="OpenVINO's CPU plugin (our ONNX export, f32 inference precision) in the "
                "integer operations it keeps: convolutions as chains of int32 Mul and Add, "
                "roundings by bits, no int64 tensor",
                measured=f"OpenVINO 2026.4.1, {_MEASURED}",
                side_limit=(
                    1 << 24,
                    "a convolution's last row or column is wrong (a 3x3 conv "
                    "of side 2^24 + 1, measured on the decode's own shapes)",
                ),
            ),
            # padding zero only: its frontend takes no Pad whose pads are a run-time input, so
            # replication is built from Slice, Expand and Concat (§9.4)
            replace(
                TARGETS["ort-cpu"],
                name="tvm-llvm",
                engine="tvm-llvm",
                checked_on="tvm-llvm",
                padding=("zero",),
                summary="Apache TVM, relax ONNX frontend, llvm for this CPU (our ONNX export, "
                "static shapes per decode): convolutions without ConvInteger",
                options=OnnxOptions(
                    conv_integer=False,
                    nhwc_sums=False,
                    lacks=(("ConvInteger", "no ConvInteger in its relax ONNX frontend"),),
                ),
                measured=f"Apache TVM 0.27.0, {_MEASURED}",
            ),
            replace(
                TARGETS["ort-cpu"],
                name="tract",
                engine="tract",
                checked_on="tract",
                summary="tract, Sonos' Rust ONNX runtime (our ONNX export, concrete shapes per "
                "decode): graphs it loads and computes exactly",
                options=OnnxOptions(
                    inexact=(
                        (("MatMul", "int64"), "by panicking (Can't build a WeightType from TDim)"),
                        (("ReduceSum", "int64"), "in int32 (int64 narrowed, it wraps)"),
                        (
                            ("Mod", "int64"),
                            "as fmod after a Cast from int32 (the remainder takes the "
                            "dividend's sign where fmod=0 asks for the floor modulo)",
                        ),
                        (
                            ("Constant past int32", "int64"),
                            "narrowed to int32 after a Cast from int32 (2^31 becomes -2^31; "
                            "its int64 arithmetic on smaller constants is exact)",
                        ),
                        (
                            ("Mul of a value by itself", "int64"),
                            "by failing: it runs it as Square, which does not take its int64 "
                            "values (Square does not support TDim)",
                        ),
                    ),
                    spread_scalars=True,
                ),
                measured=f"tract 0.23.9, {_MEASURED}",
            ),
        )
    }
)


#: The target whose model a format is, where an NPU's compiler reads that format (``via``).
VIA = {"tflite": "tflm"}


def target(name: str) -> Target:
    """The description of target ``name``; ``KeyError`` names the known ones."""
    try:
        return TARGETS[name]
    except KeyError:
        raise KeyError(f"unknown target {name!r}; known: {', '.join(TARGETS)}") from None
