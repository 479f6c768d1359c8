"""What a difference looks like: the one pattern every differing element shares, in words,
or ``None`` when they share none of these.

- a rounding tie (§2): a ``half_up`` / ``half_even`` requantisation whose exact ``p`` lies on
  a tie at the element, and the engine's value is the other rounding of that tie;
- rounding to nearest: a ``floor`` requantisation whose engine value is ``p / 2^s`` rounded
  to nearest wherever the fraction is a half or more (a runtime that fuses the division into
  a float op);
- magnitudes: values that agree below ``2^24`` and not above (float32 accumulation), below
  ``2^53`` and not above (float64 arithmetic), or below ``2^31`` and wildly off above (int64
  narrowed to int32);
- float32 values: an operator that rounds nothing (a ``clamp``, a tensor's ``clamp``
  policy) whose every differing element is its exact value rounded to float32, as a runtime
  that fuses a clamp's ``Min`` and ``Max`` into one float32 Clamp gives.

Each is decided from exact integers: the reference's ``p`` and shift for an operator, or an
independent evaluation of one node of an exported model.
"""

from __future__ import annotations

import numpy as np

from waiexport.reference.integer import r_round

__all__ = ["ties", "nearest", "magnitude", "wrap32", "float32_values"]

F32, I32, F64 = 1 << 24, 1 << 31, 1 << 53


def _ints(a) -> np.ndarray:
    return np.asarray(a).astype(object).reshape(-1)


def wrap32(v: int) -> int:
    """``v`` narrowed to int32 the way two's complement hardware narrows it."""
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def ties(p, s, mode: str, delta, mask) -> tuple[int, str | None]:
    """How many differing elements (``mask``) lie on a tie of ``R_mode(p, s)`` with the
    engine's value (``delta = got − expected``) the other rounding of that tie, and the
    pattern's name when every differing element is one."""
    if mode not in ("half_up", "half_even"):
        return 0, None
    p, s = _ints(p), _ints(np.broadcast_to(s, np.shape(p)))
    delta, mask = _ints(delta), np.asarray(mask).reshape(-1)
    hits, negative, to_even, up = 0, True, True, True
    for k in np.flatnonzero(mask):
        pk, sk = int(p[k]), int(s[k])
        if sk == 0 or pk % (1 << sk) != 1 << (sk - 1):
            continue
        floor = pk >> sk
        chosen = floor + 1 if mode == "half_up" or floor % 2 else floor
        other = floor if chosen == floor + 1 else floor + 1
        if int(delta[k]) != other - chosen:
            continue
        hits += 1
        negative &= pk < 0
        to_even &= other % 2 == 0
        up &= other > chosen
    if not hits or hits != int(mask.sum()):
        return hits, None
    if mode == "half_up":
        if negative:
            return hits, "negative ties rounded away from zero (toward -infinity)"
        return hits, "ties rounded to even" if to_even else "ties rounded down (toward -infinity)"
    return hits, "ties rounded up (half_up), not to even" if up else "ties rounded away from even"


def nearest(p, s, mode: str, delta, mask) -> str | None:
    """The nearest-rounding pattern: the engine divides what the requantisation divides
    (``p``, or ``p + 2^(s−1)`` for ``half_up``) in a float op and rounds to nearest, so every
    element whose quotient's fraction passes a half is one more, none below a half is, and a
    tie may go either way; ``None`` unless every differing element (``mask``) fits that."""
    if mode not in ("floor", "half_up") or not np.asarray(mask).any():
        return None
    p, s = _ints(p), _ints(np.broadcast_to(s, np.shape(p)))
    delta, mask = _ints(delta), np.asarray(mask).reshape(-1)
    for pk, sk, dk, bad in zip(p, s, delta, mask):
        pk, sk = int(pk), int(sk)
        if sk == 0:
            if bad:
                return None
            continue
        r, half = (pk + (1 << (sk - 1) if mode == "half_up" else 0)) % (1 << sk), 1 << (sk - 1)
        want = 1 if r > half else 0
        if int(dk) != want and not (r == half and int(dk) in (0, 1)):
            return None
    return (
        f"quotients rounded to nearest instead of {mode}, as a division fused into a float "
        "op and rounded gives"
    )


def _float64_not_32(exact, delta, s, result) -> bool:
    """Whether some element's engine value is what float64 gives and not what float32
    gives (its exact value rounded to each format, then requantised as the element is)."""
    es, ds = _ints(exact), _ints(delta)
    ss = [None] * len(es) if s is None else _ints(np.broadcast_to(s, np.shape(exact)))
    for v, dv, k in zip(es, ds, ss):
        v, got = int(v), result(int(v), k) + int(dv)
        if abs(v) >= 1 << 127:  # past float32's range
            continue
        if result(int(np.float64(v)), k) == got != result(int(np.float32(v)), k):
            return True
    return False


def magnitude(exact, delta, mask, s=None, mode: str = "floor") -> str | None:
    """The magnitude pattern of the differing elements. ``exact`` is the exact value formed
    at each element (an accumulator or product entering ``R_mode(·, s)``, or, with ``s``
    ``None``, a node's own output) and ``delta`` the engine's error on the result. A float
    pattern needs every wrong result to be what some value within the float format's error
    of the exact one gives; int32 narrowing, exactly the result of the wrapped value."""
    mask = np.asarray(mask).reshape(-1)
    if not mask.any():
        return None
    e, d = _ints(exact)[mask], _ints(delta)[mask]
    s_ = [None] * len(e) if s is None else _ints(np.broadcast_to(s, np.shape(exact)))[mask]

    def result(v, k):
        return v if k is None else r_round(v, int(k), mode)

    def wrong(v, dv, k):  # the engine's result at this element
        return result(v, k) + dv

    low = min(abs(int(v)) for v in e)
    els = list(zip((int(v) for v in e), (int(v) for v in d), s_))
    if low >= I32 and all(wrong(v, dv, k) == result(wrap32(v), k) for v, dv, k in els):
        return "values that agree below 2^31 and not above, as int64 narrowed to int32 gives"

    def floats(bits, slack):  # every wrong result is that of a value within slack·ulp
        def near(v, dv, k):
            step = slack << max(abs(v).bit_length() - bits, 0)
            return result(v - step, k) <= wrong(v, dv, k) <= result(v + step, k)

        return all(near(v, dv, k) for v, dv, k in els)

    if low > F64 and floats(53, 1):
        if _float64_not_32(exact, delta, s, result):
            return "values that agree below 2^53 and not above, as float64 arithmetic gives"
        return (
            "values past 2^53 differ, as float32 or float64 arithmetic gives (no element "
            "here tells the two apart)"
        )
    if low > F32 and floats(24, 1 << 14):  # a float32 sum of many terms: each adds an error
        return "sums that agree below 2^24 and not above, as float32 accumulation gives"
    return None


def float32_values(exact, delta, mask) -> str | None:
    """The float32 pattern: every differing element's engine value (``exact + delta``) is
    its exact value rounded to float32 (to nearest, ties to even), which differs from it
    only past 2^24; ``None`` unless every differing element (``mask``) is."""
    mask = np.asarray(mask).reshape(-1)
    if not mask.any():
        return None
    for v, dv in zip(_ints(exact)[mask], _ints(delta)[mask]):
        if abs(int(v)) >= 1 << 127 or int(np.float32(int(v))) != int(v) + int(dv):
            return None
    return (
        "values rounded to float32 past 2^24, as a runtime that fuses a clamp's Min and "
        "Max into one float32 Clamp gives"
    )
