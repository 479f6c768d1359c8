"""Locating a difference: the first operator whose output an engine computes otherwise than
the reference, and, for a requantising operator, how many of its differing elements sit
exactly on a rounding tie (remainder ``2^(s−1)``), the classic off-by-one of integer
runtimes."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from waiexport.reference import decode
from waiexport.reference.arrays import wide
from waiexport.reference.ops import OPS, Ctx
from waiexport.refusal import Refusal

__all__ = ["locate"]

_ROUNDING_OPS = ("conv", "conv_transpose", "rescale", "chscale", "mul", "gram", "apply")


@contextmanager
def _spy_rounding(captured: list):
    """Record every ``(p, s)`` the reference rounds, while inside."""
    from waiexport.reference import rq as rq_module
    from waiexport.reference.ops import apply, chscale, gram
    modules = (rq_module, chscale, gram, apply)
    real = rq_module.rround

    def spy(p, s, mode):
        captured.append((np.asarray(p), np.asarray(s)))
        return real(p, s, mode)
    saved = [m.rround for m in modules]
    for m in modules:
        m.rround = spy
    try:
        yield
    finally:
        for m, f in zip(modules, saved):
            m.rround = f


def _ties(op, env, scalars, g, mask) -> int:
    captured: list = []
    with _spy_rounding(captured):
        OPS[op.name](op.params, [env[t] for t in op.inputs],
                     Ctx(tuple(scalars), tuple(g.tensor(t).channels for t in op.outputs)))
    p, s = captured[-1]
    p, s = wide(p), np.broadcast_to(wide(s), p.shape)
    half = np.frompyfunc(lambda k: (1 << (k - 1)) if k > 0 else -1, 1, 1)(s)
    on_tie = (p % np.frompyfunc(lambda k: 1 << k, 1, 1)(s)) == half
    return int(np.count_nonzero(on_tie.astype(bool) & mask))


def locate(loaded, inputs, scalars) -> dict | None:
    """The first operator (graph order) whose output ``loaded`` computes otherwise than the
    reference on the same decode, or ``None`` when it cannot tell."""
    if loaded.run_all is None:
        return None
    g = loaded.graph
    try:
        want = decode(g, inputs, scalars, keep=True)
        got = loaded.run_all(inputs, scalars)
    except Refusal:
        return None
    for op in g.ops:
        for slot, t in enumerate(op.outputs):
            a, b = want[t], got.get(t)
            if b is None or a.shape != b.shape or not (a == b).all():
                found = {"operator": op.index, "op": op.name, "output": slot}
                if b is not None and a.shape == b.shape:
                    mask = (a.astype(object) != b.astype(object)).astype(bool)
                    found["differing"] = int(mask.sum())
                    if op.name in _ROUNDING_OPS:
                        found["on_a_tie"] = _ties(op, want, scalars, g, mask)
                return found
    return None
