"""The requantisation epilogue (§5.1) in ONNX integer operators, exact for every rounding,
both bias placements and every shift ``acc32`` allows (0..63), on ``int64`` values.

Where the certificate bounds ``p`` (the ``rq.p`` interval, §8.3) and ``p + K·2^s`` fits the
width for the ``K`` that makes it non-negative, a floor shift is ``⌊(p + K·2^s) / 2^s⌋ − K``:
``Div`` of a non-negative value truncates to the floor, and no ``Mod`` runs (it costs five
times a ``Div`` on onnxruntime's CPU, measured). Elsewhere it is ``(p − (p mod d)) / d`` with
``Mod`` a floor modulo and ``d = 2^s``: the division is exact, so ``Div``'s truncation never
shows. A shift past 62 (whose ``2^s`` has no int64) is two such steps; ``p mod 2^s`` is
rebuilt from both remainders, and still fits. Nothing wraps. Where the target's runtime
narrows an int64 constant past int32 (tract), a shift is taken in floor steps of at most 30
bits and the roundings from floor shifts alone, so no constant passes int32.
"""

from __future__ import annotations


from . import limbs, wide
from .emit import BOOL, I32, I64, Emitter, channel_const
from .limbs import bit_floor_shift
from .probes import SQUARE, WIDE_CONSTANT

__all__ = [
    "room",
    "floor_divmod",
    "floor_shift",
    "requantise",
    "rq_args",
    "has_int64",
    "product_type",
    "span",
    "width",
]


def _top(dtype: int) -> int:
    """The largest value of ``dtype``, int32 or int64."""
    return (1 << 31) - 1 if dtype == I32 else (1 << 63) - 1


def _lifts(shifts: list[int], span, dtype: int) -> list[int] | None:
    """Per channel, the ``K ≥ 0`` that makes ``p + K·2^s`` non-negative for every ``p`` in
    ``span``, or None where ``span`` is unknown or the lift or the lifted top passes the
    width."""
    top = _top(dtype)
    if span is None or max(shifts) > (30 if dtype == I32 else 62):
        return None
    lifts = [max(0, -(span[0] >> s)) for s in shifts]
    lift = max(k << s for k, s in zip(lifts, shifts))
    if span[1] + lift > top or lift > top:
        return None
    return lifts


def floor_shift(
    e: Emitter, p: str, shifts: list[int], dtype: int = I64, span=None, offset=None
) -> str:
    """``⌊(p + offset) / 2^s⌋`` for per-channel shifts ``s ∈ 0..127`` (``0..30`` on int32) and
    per-channel integers ``offset`` (none when None), ``p + offset`` within ``span`` when that
    is given: a lifted ``Div`` where :func:`_lifts` allows it, the offset and the lift added
    as one constant where that fits ``dtype`` (a pass over ``p`` fewer); by bits where the
    target's runtime computes no int32 ``Div`` exactly; in steps of at most 30 bits where it
    narrows an int64 constant past int32 (:func:`_stepped`). An int64 ``p + offset`` floors by a
    shift past 63 as by 63, to −1 or 0."""
    if not any(shifts):
        return _plus(e, p, offset, dtype)
    shifts = [min(s, 63) for s in shifts] if dtype == I64 else shifts
    if _short(e, dtype):
        return _stepped(e, _plus(e, p, offset, dtype), shifts)
    if dtype == I32 and not e.exact("Div", I32):
        return bit_floor_shift(e, _plus(e, p, offset, dtype), shifts, span)
    lifts = _lifts(shifts, span, dtype)
    if lifts is None:
        return floor_divmod(e, _plus(e, p, offset, dtype), shifts, dtype)[0]
    p, added = _merged(e, p, offset, [k << s for k, s in zip(lifts, shifts)], dtype)
    q = e.node(
        "Div",
        [_plus(e, p, added, dtype), channel_const(e, [1 << s for s in shifts], "pow2", dtype)],
    )
    return e.node("Sub", [q, channel_const(e, lifts, "lift", dtype)]) if any(lifts) else q


def _plus(e: Emitter, p: str, offset, dtype: int) -> str:
    """``p + offset`` for per-channel integers ``offset`` (``p`` where none or all 0)."""
    if offset is None or not any(offset):
        return p
    return e.node("Add", [p, channel_const(e, offset, "bias", dtype)])


def _merged(e: Emitter, p: str, offset, more: list[int], dtype: int) -> tuple[str, list[int]]:
    """``(p, offset + more)`` where each sum fits ``dtype`` (one ``Add`` for both, later),
    else ``(p + offset, more)``."""
    if offset is None:
        return p, more
    both = [int(o) + m for o, m in zip(offset, more, strict=True)]
    fits = all(-_top(dtype) <= b <= _top(dtype) for b in both)
    return (p, both) if fits else (_plus(e, p, offset, dtype), more)


def _bit_half_even(e: Emitter, p: str, shifts: list[int], half: str) -> str:
    """``R_half_even(p, s)`` of an int32 ``p`` with no ``Div``, ``Mod`` or comparison (all
    through float on OpenVINO, measured): ``q = ⌊p / 2^s⌋`` by :func:`bit_floor_shift`, the
    remainder ``r = p AND (2^s − 1)``, ``d = r − 2^(s−1)``; up by one where ``d > 0``
    (``min(max(d, 0), 1)``), or where ``d = 0`` (``1 − min(max(d, −d), 1)``) and ``q`` is odd
    (``q AND 1``); never where ``s = 0``."""
    one = e.const(1, I32)
    q = bit_floor_shift(e, p, shifts)
    d = e.node(
        "Sub",
        [
            e.node(
                "BitwiseAnd", [p, channel_const(e, [(1 << s) - 1 for s in shifts], "mask", I32)]
            ),
            half,
        ],
    )
    above = e.node("Min", [e.node("Max", [d, e.const(0, I32)]), one])
    size = e.node("Max", [d, e.node("Mul", [d, e.const(-1, I32)])])
    tie = e.node("Sub", [one, e.node("Min", [size, one])])
    up = e.node("Add", [above, e.node("Mul", [tie, e.node("BitwiseAnd", [q, one])])])
    if 0 in shifts:
        up = e.node("Mul", [up, channel_const(e, [int(s > 0) for s in shifts], "shifted", I32)])
    return e.node("Add", [q, up])


def floor_divmod(e: Emitter, p: str, shifts: list[int], dtype: int = I64) -> tuple[str, str]:
    """``(⌊p / 2^s⌋, p mod 2^s)`` for per-channel shifts ``s ∈ 0..63`` (``0..30`` on int32,
    where ``2^s`` must be an int32)."""
    first = channel_const(e, [1 << min(s, 62) for s in shifts], "pow2", dtype)
    r = e.node("Mod", [p, first], fmod=0)
    q = e.node("Div", [e.node("Sub", [p, r]), first])
    if max(shifts) <= 62:
        return q, r
    second = channel_const(e, [1 << max(s - 62, 0) for s in shifts], "pow2")
    r2 = e.node("Mod", [q, second], fmod=0)
    q = e.node("Div", [e.node("Sub", [q, r2]), second])
    return q, e.node("Add", [r, e.node("Mul", [r2, first])])


def square(e: Emitter, x: str, dtype: int = I64) -> str:
    """``x·x`` of a ``dtype`` tensor whose ``x·(x + 1)`` fits it, as ``x·(x + 1) − x``
    where the runtime fails a ``Mul`` of a value by itself (:data:`.probes.SQUARE`)."""
    if e.exact(SQUARE, dtype):
        return e.node("Mul", [x, x])
    plus = e.node("Add", [x, e.const(1, dtype)])
    return e.node("Sub", [e.node("Mul", [x, plus]), x])


def _short(e: Emitter, dtype: int) -> bool:
    """Whether an int64 recipe must form no constant past int32: the target's runtime
    narrows one (its description's :data:`.probes.WIDE_CONSTANT`)."""
    return dtype == I64 and not e.exact(WIDE_CONSTANT, I64)


def _stepped(e: Emitter, p: str, shifts: list[int]) -> str:
    """``⌊p / 2^s⌋`` per channel of an int64 ``p``, in floor shifts of at most 30 bits
    (``⌊⌊p / 2^a⌋ / 2^b⌋ = ⌊p / 2^(a+b)⌋``), so every constant fits int32: each is ``Div``
    of ``p − (2^a − 1)`` where ``p < 0`` (the sign ``min(max(p, −1), 0)`` times ``2^a − 1``),
    whose truncation is then the floor (no ``Mod``: tract's int64 ``Mod`` takes the
    dividend's sign, measured)."""
    left = list(shifts)
    while any(left):
        step = [min(s, 30) for s in left]
        sign = e.node("Min", [e.node("Max", [p, e.const(-1, I64)]), e.const(0, I64)])
        lift = e.node("Mul", [sign, channel_const(e, [(1 << a) - 1 for a in step], "low", I64)])
        p = e.node(
            "Div", [e.node("Add", [p, lift]), channel_const(e, [1 << a for a in step], "pow2", I64)]
        )
        left = [s - a for s, a in zip(left, step)]
    return p


def _stepped_round(e: Emitter, p: str, shifts: list[int], mode: str) -> str:
    """``R_mode(p, s)`` per channel of an int64 ``p`` from :func:`_stepped` floor shifts
    alone, no constant past int32: ``half_up`` is ``⌊(⌊p / 2^(s−1)⌋ + 1) / 2⌋``, and
    ``half_even`` is ``half_up`` of ``p + b − 1``, ``b`` the parity of ``⌊p / 2^s⌋`` (below
    the half that lowers a tie to ``q``; at it, ``q + b``, the even one)."""
    if mode == "floor":
        return _stepped(e, p, shifts)
    shifted = [int(s > 0) for s in shifts]
    if mode == "half_even":
        q = _stepped(e, p, shifts)
        odd = e.node("Sub", [q, e.node("Mul", [_stepped(e, q, [1]), e.const(2, I64)])])
        less = e.node("Sub", [odd, e.const(1, I64)])
        if 0 in shifts:
            less = e.node("Mul", [less, channel_const(e, shifted, "shifted", I64)])
        p = e.node("Add", [p, less])
    q1 = _stepped(e, p, [max(s - 1, 0) for s in shifts])
    return _stepped(e, e.node("Add", [q1, channel_const(e, shifted, "half", I64)]), shifted)


def _round(e: Emitter, p: str, shifts: list[int], mode: str, dtype: int, span, offset=None) -> str:
    """``R_mode(p + offset, s)`` per channel (``offset`` per-channel integers or None)."""
    if _short(e, dtype):
        return _stepped_round(e, _plus(e, p, offset, dtype), [min(s, 63) for s in shifts], mode)
    if mode == "floor":
        return floor_shift(e, p, shifts, dtype, span, offset)
    halves = [(1 << (s - 1)) if s else 0 for s in shifts]
    if mode == "half_up":
        p, offset = _merged(e, p, offset, halves, dtype)
        return floor_shift(e, p, shifts, dtype, span, offset)
    p = _plus(e, p, offset, dtype)
    half = channel_const(e, halves, "half", dtype)
    if dtype == I32 and not e.exact("Div", I32):
        return _bit_half_even(e, p, shifts, half)
    q, r = floor_divmod(e, p, shifts, dtype)
    odd = e.node("Equal", [e.node("Mod", [q, e.const(2, dtype)], fmod=0), e.const(1, dtype)])
    tie = e.node("And", [e.node("Equal", [r, half]), odd])
    up = e.node("Or", [e.node("Greater", [r, half]), tie])
    up = e.node(
        "And",
        [
            up,
            e.const(
                e.per_channel([s > 0 for s in shifts]) if len(set(shifts)) > 1 else shifts[0] > 0,
                BOOL,
            ),
        ],
    )
    return e.node("Add", [q, e.cast(up, dtype)])


def _wide_one(e: Emitter, p: list[str], s: int, mode: str) -> str:
    """``R_mode(P, s)`` of a wide ``P`` (:mod:`.wide`), as int64 (the certified ``rq.q``
    fits): floor shifts only, so no ``P + 2^(s−1)`` is formed. ``half_up`` is
    ``⌊(⌊P / 2^(s−1)⌋ + 1) / 2⌋``; ``half_even`` reads the bit below the cut from
    ``⌊P / 2^(s−1)⌋`` and whether any lower bit is set from ``⌊(P − 1) / 2^(s−1)⌋``."""
    if s == 0:
        return wide.narrow(e, p)
    if mode == "floor":
        return wide.narrow(e, wide.floor_shift(e, p, s))
    q1 = wide.floor_shift(e, p, s - 1)
    if mode == "half_up":
        return wide.narrow(e, wide.floor_shift(e, wide.add_small(e, q1, 1), 1))
    q = wide.floor_shift(e, q1, 1)
    one = e.const(1, I64)
    below = wide.equal(e, wide.floor_shift(e, wide.add_small(e, p, -1), s - 1), q1)
    up = e.node(
        "And",
        [
            e.node("Equal", [wide.low_bit(e, q1), one]),
            e.node("Or", [below, e.node("Equal", [wide.low_bit(e, q), one])]),
        ],
    )
    return e.node("Add", [wide.narrow(e, q), e.cast(up, I64)])


def _wide_round(e: Emitter, t: str, shifts: list[int], mode: str, mult) -> str:
    """``R_mode(t·mult, s)`` per channel through a wide product (§7.1: ``rq.p`` past 64 bits,
    or a shift past 63 under ``acc64``), one group of channels per distinct shift."""
    p = wide.product(e, t, mult) if mult is not None else wide.from_i64(e, t)
    out = None
    for s in sorted(set(shifts)):
        q = _wide_one(e, p, s, mode)
        mask = e.per_channel([t_ == s for t_ in shifts])
        out = q if out is None else e.node("Where", [e.const(mask, BOOL), q, out])
    return out


def _needs_wide(shifts: list[int], span, dtype: int) -> bool:
    """Whether the recipe needs a wide product: only under acc64 (int64), for a shift past
    63 or an ``rq.p`` interval past i64."""
    return dtype == I64 and (
        max(shifts) > 63 or (span is not None and (span[0] < -(1 << 63) or span[1] >= 1 << 63))
    )


def _limbs_round(e: Emitter, v: str, shifts: list[int], mode: str, mult, operand, factor):
    """``R_mode(v·mult, s)`` per channel of an int32 ``v`` (within ``operand``) from int32
    limbs (:mod:`.limbs`), ``mult`` per-channel integers or an int32 tensor within
    ``factor``; one group of channels per distinct shift."""
    a = limbs.split(e, v, operand)
    if mult is None:
        b = None
    elif isinstance(mult, str):
        b = limbs.split(e, mult, factor)
    else:
        b = limbs.constants(e, mult)
    out = None
    for s in sorted(set(shifts)):
        q = limbs.rounded(e, a, b, s, mode, v)
        mask = e.per_channel([t == s for t in shifts])
        out = q if out is None else e.node("Where", [e.const(mask, BOOL), q, out])
    return out


def _needs_limbs(dtype: int, shifts: list[int], span, mult=None) -> bool:
    """Whether :func:`requantise` forms this recipe from int32 limbs (:mod:`.limbs`): on
    int32, for a multiplier tensor, or a product or shift past the int32 recipe."""
    return dtype == I32 and (isinstance(mult, str) or not _in_i32(shifts, span))


def _in_i32(shifts: list[int], span) -> bool:
    """Whether the int32 recipe holds: a certified ``rq.p`` within i32, shifts up to 30."""
    return span is not None and -(1 << 31) <= span[0] and span[1] < 1 << 31 and max(shifts) <= 30


def requantise(
    e: Emitter,
    v: str,
    *,
    round: str,
    shifts: list[int],
    mult=None,
    pre=None,
    post=None,
    dtype: int = I64,
    span=None,
    operand=None,
    factor=None,
) -> str:
    """``y = R_round((v + pre)·mult, shifts) + post`` (§5.1) on a ``dtype`` tensor ``v``
    (int64, or int32 where :func:`width` proves every value fits or the runtime has no exact
    int64): ``mult`` a per-channel list or a tensor name (within ``factor``), ``pre``/``post``
    per-channel lists, ``span`` the certified ``rq.p`` interval when known (it covers ``p``
    and ``p + 2^(s−1)``), ``operand`` that of ``rq.t``. On int32, a product or a shift past
    the int32 recipe is formed from limbs (:mod:`.limbs`). Without a multiplier, ``pre`` is
    added with the rounding's half and lift, one constant where it fits. A ``v`` left times
    ``2^t`` (``e.scaled``, within :func:`room`) is rounded by ``s + t`` bits, ``pre`` times
    ``2^t``."""
    scaled = e.scaled.get(v)
    if scaled is not None:
        shifts = [s + t for s, t in zip(shifts, scaled, strict=True)]
        pre = None if pre is None else [int(b) << t for b, t in zip(pre, scaled, strict=True)]
        span = None if span is None else tuple(int(b) << max(scaled) for b in span)
    wide_ = _needs_wide(shifts, span, dtype)
    limbed = _needs_limbs(dtype, shifts, span, mult)
    if pre is not None and (wide_ or limbed or mult is not None):
        v, pre = _plus(e, v, pre, dtype), None
    if wide_:
        q = _wide_round(e, v, shifts, round, mult)
    elif limbed:
        q = _limbs_round(e, v, shifts, round, mult, operand, factor)
    else:
        if mult is not None:
            v = e.node(
                "Mul", [v, mult if isinstance(mult, str) else channel_const(e, mult, "mult", dtype)]
            )
        q = _round(e, v, shifts, round, dtype, span, pre)
    return q if post is None else e.node("Add", [q, channel_const(e, post, "bias", dtype)])


def room(args: dict, dtype: int) -> int:
    """How many bits of a scale ``2^t`` (at most 2) :func:`requantise` takes into its shifts
    for these keywords (:func:`rq_args`), the same int32 recipe still holding: each rounding
    of ``2^t·p`` by ``s + t`` bits is that of ``p`` by ``s`` (the same quotient), with
    ``pre`` times ``2^t``, and ``rq.t`` (``operand``) within i32 times ``2^t``; 0 where the
    recipe is not the int32 one."""
    shifts, span, pre = args["shifts"], args["span"], args.get("pre") or [0]
    operand = args.get("operand") or (0, 0)
    if dtype != I32 or isinstance(args.get("mult"), str) or not _in_i32(shifts, span):
        return 0
    return max(
        t
        for t in range(3)
        if _in_i32([s + t for s in shifts], (span[0] << t, span[1] << t))
        and all(abs(int(b) << t) <= _top(I32) for b in pre)
        and -(1 << 31) <= operand[0] << t
        and operand[1] << t <= _top(I32)
    )


def has_int64(e: Emitter) -> bool:
    """Whether the target's runtime computes int64 ``Mul``, ``Add`` and ``Div`` exactly (its
    description, measured by the probes)."""
    return all(e.exact(op, I64) for op in ("Mul", "Add", "Div"))


def product_type(e: Emitter) -> int:
    """The type an operator's values past i32 are formed in: int32 limbs (:mod:`.limbs`) on
    an ``acc32`` model for a runtime without exact int64 (:func:`has_int64`), else int64."""
    return I32 if e.storage == I32 and not has_int64(e) else I64


def width(result, args: dict, e: Emitter | None = None) -> int:
    """int32 where the certificate's intervals of ``rq.t``, ``rq.p`` (which covers
    ``p + 2^(s−1)``), ``rq.q`` and ``rq.y`` fit i32, every shift is at most 30 and every bias
    and multiplier fits: the whole recipe then stays in int32 (§6: a value may be formed in
    any width that holds its certified interval); int64 otherwise. On an ``acc32`` model for
    a runtime without exact int64 (``e``'s target, :func:`has_int64`), int32: every value
    but the product fits i32 (§7.2), and :func:`requantise` forms that from limbs."""
    if e is not None and product_type(e) == I32:
        return I32
    if result is None:
        return I64
    lo, hi = -(1 << 31), (1 << 31) - 1
    ivs = [result.intermediates.get(k) for k in ("rq.t", "rq.p", "rq.q", "rq.y")]
    params = [
        v for key in ("mult", "pre", "post") if isinstance(args.get(key), list) for v in args[key]
    ]
    if (
        any(iv is None or iv[0] < lo or iv[1] > hi for iv in ivs)
        or max(args["shifts"]) > 30
        or any(not lo <= v <= hi for v in params)
        or isinstance(args.get("mult"), str)
    ):
        return I64
    return I32


def span(result, key: str = "rq.p"):
    """The certified interval of an operator's intermediate ``key``, or None."""
    return None if result is None else result.intermediates.get(key)


def rq_args(rq, channels: int, result=None) -> dict:
    """An ``RQ`` block as :func:`requantise`'s keywords, one value per channel, with the
    certified ``rq.p`` and ``rq.t`` intervals of ``result`` (the operator's certificate)
    when given."""
    bias = [int(b) for b in rq.bias]
    return dict(
        round=rq.round,
        shifts=rq.shifts(channels),
        span=span(result),
        operand=span(result, "rq.t"),
        mult=rq.mults(channels) if rq.m_kind else None,
        pre=bias if rq.bias_kind == "pre" else None,
        post=bias if rq.bias_kind == "post" else None,
    )
