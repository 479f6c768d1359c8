"""The operator table of §5 as data: the one place that knows each graph operator's facts.

Every other part (reader, writer, planner, reference, bounds, exporter, vectors) looks an
operator up here by name or by opcode.
"""

from dataclasses import dataclass

__all__ = ["OpInfo", "OPS", "BY_NAME", "BY_CODE", "info", "named"]


_RQ_P = ("rq.p",)


@dataclass(frozen=True)
class OpInfo:
    """One row of the §5 table, with the facts every other part reads of an operator.

    ``min_in``/``max_in`` give the arity of the input side (``concat`` takes 2..255, the
    ``u8 n_in`` of §10.2); ``npu`` is ``"yes"``, ``"flagged"`` or ``"no"`` (§9.2),
    ``npu_condition`` the condition §5's column attaches to a ``yes`` and ``npu_reason``
    §9.2's reason for a ``no``. ``rq`` says whether the operator ends in an ``rq`` (§5.1) and
    over which channels it runs: ``"cout"`` (the weights' output channels) or ``"input"``
    (its input's); ``rounds`` whether it rounds a scaled product (§2: every ``rq``, and
    ``chscale``); ``k_c`` and ``mac`` whether its certificate entry records ``k_c`` and
    ``mac`` (§8.5); ``wide`` its intermediates of class ``wide`` or ``product`` (§7.1),
    the values that may pass 64 bits.
    """

    code: int
    name: str
    min_in: int
    max_in: int
    n_out: int
    family: str
    i32: bool
    npu: str
    npu_condition: str | None = None
    npu_reason: str | None = None
    rq: str = ""
    rounds: bool = False
    k_c: bool = False
    mac: bool = False
    wide: tuple = ()

    def arity_ok(self, n_in: int, n_out: int) -> bool:
        """Whether ``n_in`` inputs and ``n_out`` outputs are this operator's (§10.3)."""
        return self.min_in <= n_in <= self.max_in and n_out == self.n_out

    @property
    def arity(self) -> str:
        """The ``in → out`` column of §5, as text."""
        n_in = f"n ≥ {self.min_in}" if self.max_in != self.min_in else str(self.min_in)
        return f"{n_in} → {self.n_out}"


def _op(code, name, n_in, n_out, family, i32, npu, cond=None, max_in=None, **facts):
    if facts.get("rq"):
        facts = {"rounds": True, "wide": _RQ_P, **facts}
    return OpInfo(code, name, n_in, max_in or n_in, n_out, family, i32, npu, cond, **facts)


_STATISTIC = "it normalises by a statistic computed at run time"
_DIVISION = (
    "it needs a division or a data-dependent shift (a lut16 can replace it where the "
    "input fits i16)"
)
_TWO_TENSORS = "it multiplies two run-time tensors over a picture-dependent length"

#: §5's table, in opcode order.
OPS: tuple[OpInfo, ...] = (
    _op(
        0x01,
        "conv",
        1,
        1,
        "linear",
        True,
        "yes",
        "groups 1 or depthwise",
        rq="cout",
        k_c=True,
        mac=True,
    ),
    _op(0x02, "rescale", 1, 1, "requantisation", True, "yes", rq="input"),
    _op(
        0x03, "chscale", 1, 1, "requantisation", True, "flagged", rounds=True, mac=True, wide=_RQ_P
    ),
    _op(0x04, "lut16", 1, 1, "table", True, "flagged"),
    _op(0x05, "add", 2, 1, "elementwise", True, "yes"),
    _op(0x06, "concat", 2, 1, "movement", True, "yes", max_in=255),
    _op(0x07, "chunk_add", 1, 1, "elementwise", True, "yes"),
    _op(0x08, "split", 1, 1, "movement", True, "yes"),
    _op(0x09, "pixel_shuffle", 1, 1, "movement", True, "yes"),
    _op(0x0A, "pixel_unshuffle", 1, 1, "movement", True, "yes"),
    _op(0x0B, "clamp", 1, 1, "elementwise", True, "yes"),
    _op(0x0C, "relu", 1, 1, "elementwise", True, "yes"),
    _op(0x0D, "leaky", 1, 1, "elementwise", True, "yes"),
    _op(0x0E, "pad_rep", 1, 1, "movement", True, "yes"),
    _op(0x0F, "crop_to", 2, 1, "movement", True, "yes"),
    _op(0x10, "mul", 2, 1, "elementwise", True, "yes", rq="input", mac=True),
    _op(
        0x11,
        "conv_transpose",
        1,
        1,
        "linear",
        True,
        "yes",
        "as phase convolutions (§9.3)",
        rq="cout",
        k_c=True,
        mac=True,
    ),
    _op(
        0x12,
        "igdn",
        1,
        1,
        "normalisation",
        True,
        "no",
        npu_reason=_STATISTIC,
        k_c=True,
        wide=("igdn.x2", "igdn.gx2", "igdn.term", "igdn.N", "igdn.xr"),
    ),
    _op(0x13, "abs", 1, 1, "elementwise", True, "yes"),
    _op(0x14, "crop", 1, 1, "movement", True, "yes", "with constant operands only"),
    _op(0x15, "subpos_split", 1, 4, "movement", True, "yes"),
    _op(0x16, "subpos_merge", 4, 1, "movement", True, "yes"),
    _op(0x17, "fill", 1, 1, "movement", True, "yes"),
    _op(
        0x18,
        "layernorm_c",
        1,
        1,
        "normalisation",
        False,
        "no",
        npu_reason=_STATISTIC,
        wide=("ln.S", "ln.m", "ln.T", "ln.v", "ln.dk", "ln.ng"),
    ),
    _op(
        0x19,
        "l2norm",
        1,
        1,
        "normalisation",
        False,
        "no",
        npu_reason=_STATISTIC,
        wide=("l2.T", "l2.vk"),
    ),
    _op(0x1A, "softmax", 1, 1, "normalisation", False, "no", npu_reason=_STATISTIC),
    _op(0x1B, "sigmoid", 1, 1, "scalar function", False, "no", npu_reason=_DIVISION),
    _op(0x1C, "elu", 1, 1, "scalar function", False, "no", npu_reason=_DIVISION, wide=("elu.p",)),
    _op(
        0x1D,
        "gram",
        2,
        1,
        "contraction",
        True,
        "no",
        npu_reason=_TWO_TENSORS,
        rq="input",
        k_c=True,
        mac=True,
    ),
    _op(
        0x1E,
        "apply",
        2,
        1,
        "contraction",
        True,
        "no",
        npu_reason=_TWO_TENSORS,
        rq="input",
        k_c=True,
        mac=True,
    ),
)

BY_NAME: dict[str, OpInfo] = {op.name: op for op in OPS}
BY_CODE: dict[int, OpInfo] = {op.code: op for op in OPS}


def info(name: str) -> OpInfo:
    """The §5 row of operator ``name``; ``KeyError`` for a name §5 does not define."""
    return BY_NAME[name]


def named(fact: str) -> tuple[str, ...]:
    """The operators for which column ``fact`` (``rq``, ``rounds``, ``k_c``, ``mac``) holds,
    in opcode order."""
    return tuple(op.name for op in OPS if getattr(op, fact))
