"""The Q16 functions of §2 in ONNX int64 arithmetic, for the acc64 lowerings: ``exp_neg_q16``
(every step an exact int64 operation, the final ``⌊y / 2^n⌋`` a ``BitShift`` of a
non-negative value) and ``rsqrt_q16`` of a wide value (:mod:`..wide`)."""

from __future__ import annotations

from onnx import TensorProto, helper

from .. import wide
from ..emit import I64, Emitter
from ..requant import square

__all__ = ["exp_neg_q16", "rsqrt_q16", "isqrt", "ones_like_axis"]

U64 = TensorProto.UINT64


def exp_neg_q16(e: Emitter, x: str) -> str:
    """§2 ``exp_neg_q16(x)`` of an int64 tensor ``x ≤ 0`` (``−x`` certified to fit)."""
    n = e.node("Div", [e.node("Neg", [x]), e.const(45426, I64)])
    t = e.node(
        "Add", [e.node("Add", [x, e.node("Mul", [n, e.const(45426, I64)])]), e.const(88670, I64)]
    )
    q = e.node("Div", [e.node("Mul", [t, t]), e.const(1 << 16, I64)])
    y = e.node(
        "Add",
        [
            e.node("Div", [e.node("Mul", [q, e.const(23495, I64)]), e.const(1 << 16, I64)]),
            e.const(22544, I64),
        ],
    )
    zero = e.node("GreaterOrEqual", [n, e.const(63, I64)])  # no int64 Min or Max, whose
    cut = e.node("Where", [zero, e.const(63, I64), n])  # kernels erred past 2^31
    shifted = e.node("BitShift", [e.cast(y, U64), e.cast(cut, U64)], direction="RIGHT")
    return e.node("Where", [zero, e.const(0, I64), e.cast(shifted, I64)])


def _at_least(e: Emitter, u: list[str], c: int) -> str:
    """``U ≥ c`` for a wide ``U``: the sign of ``U − c``."""
    return e.node("GreaterOrEqual", [wide.add(e, u, wide.from_const(e, -c))[-1], e.const(0, I64)])


def rsqrt_q16(e: Emitter, u: list[str]) -> str:
    """§2 ``rsqrt_q16(U)`` of a wide ``U ≥ 1``, as int64: ``⌊2^32 / isqrt(U)⌋``. From
    ``U ≥ (2^32 + 1)²`` on, ``isqrt(U) > 2^32`` and the result is 0; from ``2^64`` to there
    ``isqrt(U) = 2^32`` and it is 1. Below ``2^64``, ``isqrt(U) = 2s + b`` with
    ``s = isqrt(⌊U / 4⌋)`` (bit by bit, every square below ``2^62``) and ``b = 1`` exactly
    when ``s² + s ≤ ⌊(U − 1) / 4⌋``, so no value past ``2^62`` is formed."""
    big = _at_least(e, u, 1 << 64)
    past = _at_least(e, u, ((1 << 32) + 1) ** 2)
    capped = wide.select(e, big, wide.from_const(e, (1 << 64) - 1), u)
    quarter = wide.narrow(e, wide.floor_shift(e, capped, 2))
    below = wide.narrow(e, wide.floor_shift(e, wide.add_small(e, capped, -1), 2))
    s = isqrt(e, quarter, 31)
    odd = e.node("LessOrEqual", [e.node("Add", [e.node("Mul", [s, s]), s]), below])
    r = e.node("Add", [e.node("Mul", [s, e.const(2, I64)]), e.cast(odd, I64)])
    k = e.node("Div", [e.const(1 << 32, I64), r])
    return e.node("Where", [past, e.const(0, I64), e.node("Where", [big, e.const(1, I64), k])])


def isqrt(e: Emitter, n: str, bits: int) -> str:
    """``isqrt(n)`` of a non-negative int64 tensor whose root has at most ``bits`` bits, bit
    by bit: ``r`` grows by ``2^b`` while its square stays at most ``n`` (each trial square
    below ``2^(2·bits)``)."""
    r = e.node("Mul", [n, e.const(0, I64)])
    for bit in reversed(range(bits)):
        step = e.node("Add", [r, e.const(1 << bit, I64)])
        r = e.node("Where", [e.node("LessOrEqual", [square(e, step), n]), step, r])
    return r


def ones_like_axis(e: Emitter, x: str, axis: int) -> str:
    """An int64 ``[n, 1]`` of ones, ``n`` the run-time size of ``x``'s ``axis``: the right
    operand of a ``MatMul`` that sums that axis exactly."""
    shape = e.node("Concat", [e.dim(x, axis), e.const([1], I64)], axis=0)
    return e.node(
        "ConstantOfShape", [shape], value=helper.make_tensor("one", TensorProto.INT64, [1], [1])
    )
