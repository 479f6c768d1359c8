"""Admissible ranges (§8.4): the widest ``[−X, X]`` a tensor may take for its consumers to
meet a profile, by binary search on ``X ∈ [0, 2^63]``."""

from __future__ import annotations

from .bounds import GraphBounds, run_rule
from .plan import load_plan
from .profiles import CLASS, fits_class

__all__ = ["admissible_range"]

TOP = 1 << 63


def _holds(gb: GraphBounds, tensor: int, consumers: list, shapes, profile: str, x: int) -> bool:
    """``C(X)``: every value a consumer classes meets ``profile``, none saturated."""
    for op in consumers:
        ins = [(-x, x) if t == tensor else gb.tensors[t] for t in op.inputs]
        if op.name == "lut16" and x > 32767:
            return False  # a table of 65,536 entries has nothing to look up past ±32767
        res, saturated = run_rule(op, ins, gb.graph, shapes)
        if saturated:
            return False
        if not all(fits_class(iv, CLASS[k], profile) for k, iv in res.intermediates.items()):
            return False
        if not all(fits_class(iv, "tensor", profile) for iv in res.results):
            return False
    return True


def admissible_range(gb: GraphBounds, tensor: int, profile: str) -> tuple[int, int] | None:
    """The admissible range of ``tensor`` for ``profile`` (§8.4), or ``None`` when ``C(0)``
    fails and the tensor has none. Only the operators that read ``tensor`` directly count;
    parameter conditions and policies are not part of the condition."""
    g = gb.graph
    consumers = [g.op(uid) for uid, _ in g.consumers(tensor)]
    consumers = list({op.uid: op for op in consumers}.values())
    shapes = load_plan(g)
    if not _holds(gb, tensor, consumers, shapes, profile, 0):
        return None
    lo, hi = 0, TOP  # C(lo) holds; find the largest X with C(X)
    if _holds(gb, tensor, consumers, shapes, profile, hi):
        lo = hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _holds(gb, tensor, consumers, shapes, profile, mid):
            lo = mid
        else:
            hi = mid - 1
    return (-lo, min(lo, TOP - 1))
