"""Operator parameters: one frozen dataclass per operator, widths kept (§10.4); how they are
laid out in bytes is :mod:`.layouts`.

Every array parameter is a read-only ``numpy.int64`` array: every width §10.4 allows (at most
8 bytes, signed) fits it.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "ROUNDS",
    "BIAS_KINDS",
    "RQ",
    "Operand",
    "Params",
    "ParamError",
    "LayoutCtx",
    "Conv",
    "ConvTranspose",
    "Rescale",
    "Chscale",
    "Mul",
    "Lut16",
    "NoParams",
    "Split",
    "Factor",
    "Clamp",
    "Leaky",
    "PadRep",
    "Crop",
    "Subpos",
    "Fill",
    "Igdn",
    "LayerNorm",
    "L2Norm",
    "Elu",
    "Contraction",
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
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    return a == b


class Params:
    """Base of the parameter dataclasses: equality compares arrays by value."""

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return all(
            _same(getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(self)
        )

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
