"""The small language §10.4's layouts are written in: each field kind reads itself from a
cursor, writes itself, and checks a value in memory; a :class:`Layout` is an operator's
parameter class, its fields in order, and its cross-field rule (:mod:`.param_rules`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .params import BIAS_KINDS, ROUNDS, RQ, LayoutCtx, Operand, ParamError

__all__ = ["Layout", "U", "S", "Z", "Enum", "Tuple", "Opnd", "Arr", "Rq", "check_width", "divided"]


def _fits(v: int, size: int, signed: bool) -> bool:
    lo, hi = (-(1 << (8 * size - 1)), 1 << (8 * size - 1)) if signed else (0, 1 << (8 * size))
    return lo <= v < hi


def check_width(arr: np.ndarray, width: int, what: str) -> None:
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
class U:
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
class S:
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
class Z:
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
class Enum:
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
class Tuple:
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
class Opnd:
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
class Arr:
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
        check_width(arr, self._width(values), self.name)


_RQ_HEAD = (("round", ROUNDS), ("bias_kind", BIAS_KINDS), ("m_kind", (0, 1, 2)), ("s_kind", (1, 2)))


@dataclass(frozen=True)
class Rq:
    """The ``RQ`` block over ``channels(values, ctx)`` channels (§10.4)."""

    channels: Callable

    def read(self, cur, values: dict, ctx: LayoutCtx) -> None:
        rnd, bias, m_kind, s_kind, m_bytes, b_bytes = (cur.uint(1, "RQ") for _ in range(6))
        if cur.uint(2, "RQ reserved"):
            raise ParamError("RQ reserved bytes are not zero")
        for name, v, ok in (
            ("round", rnd, (0, 1, 2)),
            ("bias", bias, (0, 1, 2)),
            ("m_kind", m_kind, (0, 1, 2)),
            ("s_kind", s_kind, (1, 2)),
            ("m_bytes", m_bytes, (0,) if m_kind == 0 else (4, 8)),
            ("b_bytes", b_bytes, (0,) if bias == 0 else (4, 8)),
        ):
            if v not in ok:
                raise ParamError(f"RQ {name} = {v} is not one of {', '.join(map(str, ok))}")
        c = self.channels(values, ctx)
        values["rq"] = RQ(
            round=ROUNDS[rnd],
            bias_kind=BIAS_KINDS[bias],
            m_kind=m_kind,
            s_kind=s_kind,
            m_bytes=m_bytes,
            b_bytes=b_bytes,
            mult=cur.array((0, 1, c)[m_kind], max(m_bytes, 1), "RQ mult"),
            shift=cur.array((0, 1, c)[s_kind], 1, "RQ shift", signed=False),
            bias=cur.array(c if bias else 0, max(b_bytes, 1), "RQ bias"),
        )

    def write(self, values: dict, out: list) -> None:
        rq = values["rq"]
        out.append(
            bytes(
                [
                    ROUNDS.index(rq.round),
                    BIAS_KINDS.index(rq.bias_kind),
                    rq.m_kind,
                    rq.s_kind,
                    rq.m_bytes,
                    rq.b_bytes,
                    0,
                    0,
                ]
            )
        )
        out += [
            _pack(rq.mult, rq.m_bytes or 1),
            _pack(rq.shift, 1, signed=False),
            _pack(rq.bias, rq.b_bytes or 1),
        ]

    def check(self, values: dict, ctx: LayoutCtx) -> None:
        rq, c = values["rq"], self.channels(values, ctx)
        if (
            any(getattr(rq, name) not in ok for name, ok in _RQ_HEAD)
            or rq.m_bytes not in ((0,) if rq.m_kind == 0 else (4, 8))
            or rq.b_bytes not in ((0,) if rq.bias_kind == "none" else (4, 8))
        ):
            raise ParamError(
                f"RQ layout {rq.round}/{rq.bias_kind}/m_kind {rq.m_kind}/s_kind "
                f"{rq.s_kind}/m_bytes {rq.m_bytes}/b_bytes {rq.b_bytes} is not "
                "§10.4's"
            )
        want = {
            "mult": (0, 1, c)[rq.m_kind],
            "shift": (0, 1, c)[rq.s_kind],
            "bias": c if rq.bias_kind != "none" else 0,
        }
        for name, n in want.items():
            if len(getattr(rq, name)) != n:
                raise ParamError(f"RQ {name} has {len(getattr(rq, name))} entries, expected {n}")
        if len(rq.shift) and (int(rq.shift.min()) < 0 or int(rq.shift.max()) > 127):
            raise ParamError(f"RQ shift {int(rq.shift.max())} is outside 0..=127")
        check_width(rq.mult, rq.m_bytes, "RQ mult")
        check_width(rq.bias, rq.b_bytes, "RQ bias")


@dataclass(frozen=True)
class Layout:
    """One operator's §10.4 layout: its dataclass, its fields, and its cross-field rule."""

    cls: type
    fields: tuple
    rule: Callable | None = None


def divided(a: int, b: int, what: str) -> int:
    """``a // b``, or :class:`ParamError` naming ``what`` where ``b`` does not divide ``a``."""
    if a % b:
        raise ParamError(f"{what}: {a} is not a multiple of {b}")
    return a // b
