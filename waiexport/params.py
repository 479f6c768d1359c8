"""Operator parameters as §10.4 lays them out: one frozen dataclass per operator, widths kept.

Each operator's byte layout is declared once, in :data:`LAYOUTS`, as a list of fields. The
reader (:func:`decode`), the writer (:func:`encode`) and the validator (:func:`check`) all walk
that one declaration, so a layout cannot drift between reading and writing.

Every array parameter is a read-only ``numpy.int64`` array: every width §10.4 allows (at most
8 bytes, signed) fits it.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = [
    "ROUNDS", "BIAS_KINDS", "RQ", "Operand", "Params", "ParamError", "LayoutCtx",
    "Conv", "ConvTranspose", "Rescale", "Chscale", "Mul", "Lut16", "NoParams", "Split",
    "Factor", "Clamp", "Leaky", "PadRep", "Crop", "Subpos", "Fill", "Igdn", "LayerNorm",
    "L2Norm", "Elu", "Contraction", "LAYOUTS", "decode", "encode", "check",
    "as_array",
]

ROUNDS = ("floor", "half_up", "half_even")
BIAS_KINDS = ("none", "pre", "post")
_I64 = (-(1 << 63), (1 << 63) - 1)


class ParamError(ValueError):
    """A parameter outside its layout or range; the reader turns it into a ``Refusal``."""


@dataclass(frozen=True)
class LayoutCtx:
    """What a parameter layout depends on beyond its own bytes: the input channel count ``cin``
    (§10.4: "``cin`` and ``C`` are the input tensor's channel count") and the scalar table."""

    cin: int
    scalars: tuple = ()


def as_array(values) -> np.ndarray:
    """``values`` as a read-only int64 array; refuses values outside i64."""
    arr = np.array(values, dtype=object if _has_big(values) else None)
    if arr.dtype == object or arr.dtype.kind not in "iub":
        flat = [int(v) for v in arr.reshape(-1)]
        if any(not _I64[0] <= v <= _I64[1] for v in flat):
            raise ParamError("a parameter value does not fit i64")
        arr = np.array(flat, dtype=np.int64).reshape(arr.shape)
    arr = arr.astype(np.int64)
    arr.flags.writeable = False
    return arr


def _has_big(values) -> bool:
    if isinstance(values, np.ndarray):
        return values.dtype == object
    if isinstance(values, (list, tuple)):
        return any(_has_big(v) for v in values)
    return isinstance(values, int) and not _I64[0] <= values <= _I64[1]


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    return a == b


class Params:
    """Base of the parameter dataclasses: equality compares arrays by value."""

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name))
                   for f in dataclasses.fields(self))

    __hash__ = None


def _frozen(cls):
    return dataclass(frozen=True, eq=False)(cls)


@_frozen
class RQ(Params):
    """The requantisation block (§5.1, §10.4). ``mult`` has 0, 1 or C entries (``m_kind`` 0,
    1, 2); ``shift`` 1 or C (``s_kind`` 1, 2); ``bias`` 0 or C (``bias_kind`` none, or
    pre/post). The kinds are kept because with C = 1 the lengths do not tell them apart."""

    round: str = "floor"
    bias_kind: str = "none"
    m_kind: int = 0
    s_kind: int = 1
    m_bytes: int = 0
    b_bytes: int = 0
    mult: np.ndarray = field(default_factory=lambda: as_array([]))
    shift: np.ndarray = field(default_factory=lambda: as_array([0]))
    bias: np.ndarray = field(default_factory=lambda: as_array([]))

    def mult_of(self, o: int) -> int:
        """Channel ``o``'s multiplier, 1 when absent."""
        return 1 if self.m_kind == 0 else int(self.mult[0 if self.m_kind == 1 else o])

    def shift_of(self, o: int) -> int:
        """Channel ``o``'s shift."""
        return int(self.shift[0 if self.s_kind == 1 else o])

    def pre_bias(self, o: int) -> int:
        """Channel ``o``'s ``pre`` bias, 0 when there is none."""
        return int(self.bias[o]) if self.bias_kind == "pre" else 0

    def post_bias(self, o: int) -> int:
        """Channel ``o``'s ``post`` bias, 0 when there is none."""
        return int(self.bias[o]) if self.bias_kind == "post" else 0

    def mults(self, channels: int) -> list[int]:
        """Every channel's multiplier (1 when absent)."""
        return [self.mult_of(o) for o in range(channels)]

    def shifts(self, channels: int) -> list[int]:
        """Every channel's shift."""
        return [self.shift_of(o) for o in range(channels)]


@_frozen
class Operand(Params):
    """A ``crop`` operand (§10.4): ``kind`` 0 is a ``u32`` constant, 1 a scalar index."""

    kind: int
    value: int


class _Weighted(Params):
    """A convolution's parameters: its weights' range is read by the profile checks and the
    bounds pass alike, so it is computed once."""

    @functools.cached_property
    def weight_range(self) -> tuple[int, int]:
        """``(min, max)`` of the weights, ``(0, 0)`` for none."""
        w = self.weights
        return (int(w.min()), int(w.max())) if w.size else (0, 0)


@_frozen
class Conv(_Weighted):
    """``conv`` (§5.2): ``weights[cout][cin/groups][kh][kw]``."""

    cout: int
    kh: int
    kw: int
    sh: int
    sw: int
    ph: int
    pw: int
    groups: int
    w_bytes: int
    rq: RQ
    weights: np.ndarray


@_frozen
class ConvTranspose(_Weighted):
    """``conv_transpose`` (§5.3): ``weights[cin][cout][kh][kw]``."""

    cout: int
    kh: int
    kw: int
    sh: int
    sw: int
    ph: int
    pw: int
    oph: int
    opw: int
    w_bytes: int
    rq: RQ
    weights: np.ndarray


@_frozen
class Rescale(Params):
    """``rescale`` (§5.4): an ``RQ`` over the input's channels."""

    rq: RQ


@_frozen
class Mul(Params):
    """``mul`` (§5.4): an ``RQ`` over ``a``'s channels, with no bias."""

    rq: RQ


@_frozen
class Chscale(Params):
    """``chscale`` (§5.4): ``table`` is ``M[n_rows][C]``, its row chosen by scalar ``scalar``."""

    scalar: int
    n_rows: int
    round: str
    m_bytes: int
    shift: int
    table: np.ndarray


@_frozen
class Lut16(Params):
    """``lut16`` (§5.6): ``table`` is ``T[65536]``; exponents ``None`` when absent."""

    e_in: int | None
    e_out: int | None
    table: np.ndarray


@_frozen
class NoParams(Params):
    """An operator with ``plen = 0``."""


@_frozen
class Split(Params):
    """``split`` (§5.10)."""

    start: int
    count: int


@_frozen
class Factor(Params):
    """``pixel_shuffle`` and ``pixel_unshuffle`` (§5.10): the factor ``r``."""

    r: int


@_frozen
class Clamp(Params):
    """``clamp`` (§5.5)."""

    lo: int
    hi: int


@_frozen
class Leaky(Params):
    """``leaky`` (§5.5): ``v·a / 2^f`` floored, on negative ``v``."""

    a: int
    f: int


@_frozen
class PadRep(Params):
    """``pad_rep`` (§5.10): pad to a multiple of ``m`` by replication."""

    m: int


@_frozen
class Crop(Params):
    """``crop`` (§5.10): four operands, each a constant or a scalar."""

    y0: Operand
    x0: Operand
    h: Operand
    w: Operand


@_frozen
class Subpos(Params):
    """``subpos_split`` and ``subpos_merge`` (§5.10): ``order[k] = 2a + b``."""

    order: tuple


@_frozen
class Fill(Params):
    """``fill`` (§5.10): ``kind`` 0 is the constant ``value``; 1 makes ``value`` a scalar index."""

    kind: int
    value: int


@_frozen
class Igdn(Params):
    """``igdn`` (§5.7): ``gamma[C][C]`` (row = output channel), ``beta[C]``."""

    gf: int
    frac: int
    g_bytes: int
    gamma: np.ndarray
    beta: np.ndarray


@_frozen
class LayerNorm(Params):
    """``layernorm_c`` (§5.7)."""

    eps: int
    g_bytes: int
    gamma: np.ndarray
    beta: np.ndarray


@_frozen
class L2Norm(Params):
    """``l2norm`` (§5.7)."""

    eps: int


@_frozen
class Elu(Params):
    """``elu`` (§5.8)."""

    alpha: int


@_frozen
class Contraction(Params):
    """``gram`` and ``apply`` (§5.9): ``groups`` and an ``RQ`` with one shift only."""

    groups: int
    rq: RQ


# --- the layout language -------------------------------------------------------------------
# Each field kind reads itself from a cursor, writes itself, and checks a value in memory; a
# layout is a tuple of fields walked in order by decode, encode and check.

def _fits(v: int, size: int, signed: bool) -> bool:
    lo, hi = (-(1 << (8 * size - 1)), 1 << (8 * size - 1)) if signed else (0, 1 << (8 * size))
    return lo <= v < hi


def _check_width(arr: np.ndarray, width: int, what: str) -> None:
    if arr.size and not (_fits(int(arr.min()), width, True) and _fits(int(arr.max()), width, True)):
        raise ParamError(f"{what} does not fit {width} bytes")


def _pack(arr: np.ndarray, width: int, signed: bool = True) -> bytes:
    """``arr`` as little-endian integers of ``width`` bytes; ``ValueError`` if one does not fit."""
    arr = np.asarray(arr)
    packed = arr.astype(f"<{'i' if signed else 'u'}{width}")
    if not np.array_equal(packed.astype(np.int64), arr):
        raise ValueError(f"a value does not fit {width} bytes")
    return packed.tobytes()


@dataclass(frozen=True)
class _U:
    """An unsigned field of ``size`` bytes with range ``[lo, hi]`` or a set ``among``. It is
    checked as it is read, since later fields' lengths depend on it."""

    name: str
    size: int
    lo: int = 0
    hi: int | None = None
    among: tuple | None = None

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        values[self.name] = cur.uint(self.size, self.name)
        self.check(values, ctx)

    def write(self, values: dict, out: list) -> None:
        out.append(int(values[self.name]).to_bytes(self.size, "little"))

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        v = values[self.name]
        if self.among is not None and v not in self.among:
            raise ParamError(f"{self.name} = {v} is not one of {', '.join(map(str, self.among))}")
        if self.hi is None and v < self.lo:
            raise ParamError(f"{self.name} = {v}, must be at least {self.lo}")
        if self.hi is not None and not self.lo <= v <= self.hi:
            raise ParamError(f"{self.name} = {v} is outside {self.lo}..={self.hi}")
        if not _fits(v, self.size, False):
            raise ParamError(f"{self.name} = {v} does not fit {self.size} bytes")


@dataclass(frozen=True)
class _S:
    """A signed field of ``size`` bytes; ``exponent`` reads −128 as ``None`` (§10.4)."""

    name: str
    size: int
    exponent: bool = False

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        v = cur.sint(self.size, self.name)
        values[self.name] = None if self.exponent and v == -128 else v

    def write(self, values: dict, out: list) -> None:
        v = values[self.name]
        out.append((-128 if v is None else v).to_bytes(self.size, "little", signed=True))

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        v = values[self.name]
        if v is None:
            ok = self.exponent
        else:
            ok = _fits(v, self.size, True) and not (self.exponent and v == -128)
        if not ok:
            raise ParamError(f"{self.name} = {v} does not fit its field")


@dataclass(frozen=True)
class _Z:
    """``size`` reserved bytes, all zero."""

    size: int

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        if any(cur.take(self.size, "reserved")):
            raise ParamError(f"reserved bytes at byte {cur.off - self.size} are not zero")

    def write(self, values: dict, out: list) -> None:
        out.append(bytes(self.size))

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        pass


@dataclass(frozen=True)
class _Enum:
    """A ``u8`` code naming one of ``names``, kept as the name."""

    name: str
    names: tuple

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        v = cur.uint(1, self.name)
        if v >= len(self.names):
            raise ParamError(f"{self.name} = {v} is not one of 0..{len(self.names) - 1}")
        values[self.name] = self.names[v]

    def write(self, values: dict, out: list) -> None:
        out.append(bytes([self.names.index(values[self.name])]))

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        if values[self.name] not in self.names:
            raise ParamError(f"{self.name} = {values[self.name]!r} is not one of {self.names}")


@dataclass(frozen=True)
class _Tuple:
    """``count`` unsigned fields of ``size`` bytes, kept as a tuple."""

    name: str
    count: int
    size: int

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        values[self.name] = tuple(cur.uint(self.size, self.name) for _ in range(self.count))

    def write(self, values: dict, out: list) -> None:
        out.extend(v.to_bytes(self.size, "little") for v in values[self.name])

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        v = values[self.name]
        if len(v) != self.count or not all(_fits(x, self.size, False) for x in v):
            raise ParamError(f"{self.name} = {v} is not {self.count} values of {self.size} bytes")


@dataclass(frozen=True)
class _Opnd:
    """A ``crop`` operand: ``u8 kind``, 3 reserved, ``u32 value-or-index``."""

    name: str

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        kind = cur.uint(1, self.name)
        if any(cur.take(3, "reserved")):
            raise ParamError(f"reserved bytes of operand {self.name} are not zero")
        values[self.name] = Operand(kind, cur.uint(4, self.name))

    def write(self, values: dict, out: list) -> None:
        op = values[self.name]
        out.append(bytes([op.kind, 0, 0, 0]) + op.value.to_bytes(4, "little"))

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        op = values[self.name]
        if not (_fits(op.kind, 1, False) and _fits(op.value, 4, False)):
            raise ParamError(f"operand {self.name} does not fit its field")


@dataclass(frozen=True)
class _Arr:
    """An array of signed integers of ``width`` bytes (a field name or a number), of shape
    ``shape(values, ctx)``."""

    name: str
    width: str | int
    shape: Callable

    def _width(self, values: dict) -> int:
        return values[self.width] if isinstance(self.width, str) else self.width

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        shape = self.shape(values, ctx)
        count = 1
        for n in shape:
            count *= n
        values[self.name] = cur.array(count, self._width(values), self.name).reshape(shape)

    def write(self, values: dict, out: list) -> None:
        out.append(_pack(values[self.name], self._width(values)))

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        arr, shape = values[self.name], tuple(self.shape(values, ctx))
        if not isinstance(arr, np.ndarray) or arr.shape != shape:
            raise ParamError(f"{self.name} has shape {np.shape(arr)}, expected {shape}")
        _check_width(arr, self._width(values), self.name)


_RQ_HEAD = (("round", ROUNDS), ("bias_kind", BIAS_KINDS), ("m_kind", (0, 1, 2)),
            ("s_kind", (1, 2)))


@dataclass(frozen=True)
class _Rq:
    """The ``RQ`` block over ``channels(values, ctx)`` channels (§10.4)."""

    channels: Callable

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        rnd, bias, m_kind, s_kind, m_bytes, b_bytes = (cur.uint(1, "RQ") for _ in range(6))
        if cur.uint(2, "RQ reserved"):
            raise ParamError("RQ reserved bytes are not zero")
        for name, v, ok in (("round", rnd, (0, 1, 2)), ("bias", bias, (0, 1, 2)),
                            ("m_kind", m_kind, (0, 1, 2)), ("s_kind", s_kind, (1, 2)),
                            ("m_bytes", m_bytes, (0,) if m_kind == 0 else (4, 8)),
                            ("b_bytes", b_bytes, (0,) if bias == 0 else (4, 8))):
            if v not in ok:
                raise ParamError(f"RQ {name} = {v} is not one of {', '.join(map(str, ok))}")
        c = self.channels(values, ctx)
        values["rq"] = RQ(
            round=ROUNDS[rnd], bias_kind=BIAS_KINDS[bias], m_kind=m_kind, s_kind=s_kind,
            m_bytes=m_bytes, b_bytes=b_bytes,
            mult=cur.array((0, 1, c)[m_kind], max(m_bytes, 1), "RQ mult"),
            shift=cur.array((0, 1, c)[s_kind], 1, "RQ shift", signed=False),
            bias=cur.array(c if bias else 0, max(b_bytes, 1), "RQ bias"))

    def write(self, values: dict, out: list) -> None:
        rq = values["rq"]
        out.append(bytes([ROUNDS.index(rq.round), BIAS_KINDS.index(rq.bias_kind), rq.m_kind,
                          rq.s_kind, rq.m_bytes, rq.b_bytes, 0, 0]))
        out += [_pack(rq.mult, rq.m_bytes or 1), _pack(rq.shift, 1, signed=False),
                _pack(rq.bias, rq.b_bytes or 1)]

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        rq, c = values["rq"], self.channels(values, ctx)
        if (any(getattr(rq, name) not in ok for name, ok in _RQ_HEAD)
                or rq.m_bytes not in ((0,) if rq.m_kind == 0 else (4, 8))
                or rq.b_bytes not in ((0,) if rq.bias_kind == "none" else (4, 8))):
            raise ParamError(f"RQ layout {rq.round}/{rq.bias_kind}/m_kind {rq.m_kind}/s_kind "
                             f"{rq.s_kind}/m_bytes {rq.m_bytes}/b_bytes {rq.b_bytes} is not "
                             "§10.4's")
        want = {"mult": (0, 1, c)[rq.m_kind], "shift": (0, 1, c)[rq.s_kind],
                "bias": c if rq.bias_kind != "none" else 0}
        for name, n in want.items():
            if len(getattr(rq, name)) != n:
                raise ParamError(f"RQ {name} has {len(getattr(rq, name))} entries, expected {n}")
        if len(rq.shift) and (int(rq.shift.min()) < 0 or int(rq.shift.max()) > 127):
            raise ParamError(f"RQ shift {int(rq.shift.max())} is outside 0..=127")
        _check_width(rq.mult, rq.m_bytes, "RQ mult")
        _check_width(rq.bias, rq.b_bytes, "RQ bias")


@dataclass(frozen=True)
class Layout:
    """One operator's §10.4 layout: its dataclass, its fields, and its cross-field rule."""

    cls: type
    fields: tuple
    rule: Callable | None = None


def _div(a: int, b: int, what: str) -> int:
    if a % b:
        raise ParamError(f"{what}: {a} is not a multiple of {b}")
    return a // b


def _scalar_ref(index: int, ctx: LayoutCtx, what: str) -> None:
    if not 0 <= index < len(ctx.scalars):
        raise ParamError(f"{what} names scalar {index}, but the graph has {len(ctx.scalars)}")


def _rule_chscale(p: Chscale, ctx: LayoutCtx) -> None:
    _scalar_ref(p.scalar, ctx, "chscale")
    lo, hi = ctx.scalars[p.scalar].lo, ctx.scalars[p.scalar].hi
    if lo < 0 or hi > p.n_rows - 1:
        raise ParamError(f"chscale scalar {p.scalar}'s range [{lo}, {hi}] is not within "
                         f"[0, {p.n_rows - 1}] (§5.4)")


def _rule_lut16(p: Lut16, ctx: LayoutCtx) -> None:
    if int(p.table[0]) != 0:
        raise ParamError(f"lut16 T[0] = {int(p.table[0])}, must be 0 (§5.6)")


def _rule_clamp(p: Clamp, ctx: LayoutCtx) -> None:
    if p.lo > p.hi:
        raise ParamError(f"clamp lo {p.lo} > hi {p.hi}")


def _rule_crop(p: Crop, ctx: LayoutCtx) -> None:
    for name in ("y0", "x0", "h", "w"):
        op = getattr(p, name)
        if op.kind not in (0, 1):
            raise ParamError(f"crop {name} kind {op.kind} is not 0 or 1")
        if op.kind == 1:
            _scalar_ref(op.value, ctx, f"crop {name}")


def _rule_subpos(p: Subpos, ctx: LayoutCtx) -> None:
    if sorted(p.order) != [0, 1, 2, 3]:
        raise ParamError(f"order {list(p.order)} is not a permutation of 0..3")


def _rule_fill(p: Fill, ctx: LayoutCtx) -> None:
    if p.kind not in (0, 1):
        raise ParamError(f"fill kind {p.kind} is not 0 or 1")
    if p.kind == 1:
        _scalar_ref(p.value, ctx, "fill")


def _rule_mul(p: Mul, ctx: LayoutCtx) -> None:
    if p.rq.bias_kind != "none":
        raise ParamError("mul's RQ has a bias; §10.4 requires bias = 0")


def _rule_contraction(p: Contraction, ctx: LayoutCtx) -> None:
    rq = p.rq
    if rq.m_kind != 0 or rq.bias_kind != "none" or rq.s_kind != 1:
        raise ParamError("gram/apply RQ must have m_kind 0, bias 0 and s_kind 1 (§10.4)")


_WIDTHS = (1, 2, 4, 8)
_CONV_HEAD = (_U("cout", 4, 1), _U("kh", 4, 1), _U("kw", 4, 1), _U("sh", 4, 1), _U("sw", 4, 1),
              _U("ph", 4), _U("pw", 4))
_W = (_U("w_bytes", 1, among=_WIDTHS), _Z(3), _Rq(lambda v, c: v["cout"]))
_CIN = _Rq(lambda v, c: c.cin)

#: The §10.4 layout of every operator, by name.
LAYOUTS: dict[str, Layout] = {
    "conv": Layout(Conv, _CONV_HEAD + (_U("groups", 4, 1),) + _W + (
        _Arr("weights", "w_bytes", lambda v, c: (
            v["cout"], _div(c.cin, v["groups"], "conv input channels / groups"), v["kh"], v["kw"])),
    )),
    "conv_transpose": Layout(ConvTranspose, _CONV_HEAD + (_U("oph", 4), _U("opw", 4)) + _W + (
        _Arr("weights", "w_bytes", lambda v, c: (c.cin, v["cout"], v["kh"], v["kw"])),
    )),
    "rescale": Layout(Rescale, (_CIN,)),
    "chscale": Layout(Chscale, (
        _U("scalar", 4), _U("n_rows", 4, 1), _Enum("round", ROUNDS),
        _U("m_bytes", 1, among=(4, 8)), _U("shift", 1, hi=127), _Z(1),
        _Arr("table", "m_bytes", lambda v, c: (v["n_rows"], c.cin)),
    ), _rule_chscale),
    "lut16": Layout(Lut16, (
        _S("e_in", 1, exponent=True), _S("e_out", 1, exponent=True), _Z(2),
        _Arr("table", 2, lambda v, c: (65536,)),
    ), _rule_lut16),
    "add": Layout(NoParams, ()),
    "concat": Layout(NoParams, ()),
    "chunk_add": Layout(NoParams, ()),
    "split": Layout(Split, (_U("start", 4), _U("count", 4, 1))),
    "pixel_shuffle": Layout(Factor, (_U("r", 4, 1),)),
    "pixel_unshuffle": Layout(Factor, (_U("r", 4, 1),)),
    "clamp": Layout(Clamp, (_S("lo", 8), _S("hi", 8)), _rule_clamp),
    "relu": Layout(NoParams, ()),
    "leaky": Layout(Leaky, (_S("a", 8), _U("f", 4, hi=63))),
    "pad_rep": Layout(PadRep, (_U("m", 4, 1),)),
    "crop_to": Layout(NoParams, ()),
    "mul": Layout(Mul, (_CIN,), _rule_mul),
    "igdn": Layout(Igdn, (
        _U("gf", 4, hi=127), _U("frac", 4, hi=127), _U("g_bytes", 1, among=(4, 8)), _Z(7),
        _Arr("gamma", "g_bytes", lambda v, c: (c.cin, c.cin)),
        _Arr("beta", 8, lambda v, c: (c.cin,)),
    )),
    "abs": Layout(NoParams, ()),
    "crop": Layout(Crop, (_Opnd("y0"), _Opnd("x0"), _Opnd("h"), _Opnd("w")), _rule_crop),
    "subpos_split": Layout(Subpos, (_Tuple("order", 4, 1),), _rule_subpos),
    "subpos_merge": Layout(Subpos, (_Tuple("order", 4, 1),), _rule_subpos),
    "fill": Layout(Fill, (_U("kind", 1), _Z(7), _S("value", 8)), _rule_fill),
    "layernorm_c": Layout(LayerNorm, (
        _U("eps", 8, 1), _U("g_bytes", 1, among=(4, 8)), _Z(7),
        _Arr("gamma", "g_bytes", lambda v, c: (c.cin,)),
        _Arr("beta", 8, lambda v, c: (c.cin,)),
    )),
    "l2norm": Layout(L2Norm, (_U("eps", 8, 1),)),
    "softmax": Layout(NoParams, ()),
    "sigmoid": Layout(NoParams, ()),
    "elu": Layout(Elu, (_S("alpha", 8),)),
    "gram": Layout(Contraction, (_U("groups", 4, 1), _CIN), _rule_contraction),
    "apply": Layout(Contraction, (_U("groups", 4, 1), _CIN), _rule_contraction),
}




# --- walking a layout ----------------------------------------------------------------------

def decode(name: str, cur, ctx: LayoutCtx) -> Params:
    """Read operator ``name``'s parameters from ``cur`` (which ends at ``plen``) and check
    them (§10.4, §10.5 step 5). Raises :class:`ParamError` or ``cursor.Short``."""
    layout = LAYOUTS[name]
    values: dict = {}
    for f in layout.fields:
        f.read(cur, values, ctx)
    if cur.left:
        raise ParamError(f"plen leaves {cur.left} bytes after the last parameter")
    params = layout.cls(**values)
    check(name, params, ctx)
    return params


def encode(name: str, params: Params) -> bytes:
    """The §10.4 bytes of ``params`` (``plen`` bytes, without the ``plen`` field)."""
    out: list = []
    for f in LAYOUTS[name].fields:
        f.write(vars(params), out)
    return b"".join(out)


def check(name: str, params: Params, ctx: LayoutCtx) -> None:
    """Check ``params`` as the reader would (§10.5 step 5): the type matches ``name``, every
    field is in range, arrays have the shapes and widths the layout gives, and the operator's
    cross-field rule holds. Raises :class:`ParamError`."""
    layout = LAYOUTS[name]
    if type(params) is not layout.cls:
        raise ParamError(f"{name} takes {layout.cls.__name__} parameters, "
                         f"not {type(params).__name__}")
    for f in layout.fields:
        f.check(vars(params), ctx)
    if layout.rule:
        layout.rule(params, ctx)
