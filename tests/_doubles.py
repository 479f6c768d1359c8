"""Test doubles of an engine, each the reference with one named mistake, for the fuzz tests:
each is also a plug-in (``waiexport.engines`` entry points written by the test), so a bug
bundle's ``repro.sh`` finds it in a fresh process. Each factory takes the plug-in's keyword
(``target_name``) and ignores it."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

import numpy as np

from waiexport.reference.ops import REFERENCE
from waiexport.reference.decode import decode
from waiexport.targets.engines.base import Loaded
from waiexport.targets.engines.reference import ReferenceEngine
from waiexport.targets.errors import EngineCrashed
from waiexport.targets.outputs import by_name


def _f32(v):
    """Each value through float32, as a runtime that holds it there computes it."""
    return np.array([int(np.float32(int(x))) for x in np.ravel(v)], dtype=object).reshape(
        np.shape(v)
    )


def _wrap32(v):
    return np.array(
        [(int(x) + (1 << 31)) % (1 << 32) - (1 << 31) for x in np.ravel(v)], dtype=object
    ).reshape(np.shape(v))


@contextmanager
def _patched(name: str, fn):
    """The reference's operator ``name`` replaced by ``fn(real, params, inputs, ctx)``."""
    real = REFERENCE[name]
    REFERENCE[name] = lambda p, ins, ctx: fn(real, p, ins, ctx)
    try:
        yield
    finally:
        REFERENCE[name] = real


class _Double(ReferenceEngine):
    """The reference, with ``mistake`` (a context) around each decode."""

    label = ""

    def __init__(self, target_name=None):
        super().__init__()
        self.name = self.label

    def mistake(self):
        raise NotImplementedError

    def load(self, data):
        g = super().load(data).graph

        def run(i, s, keep=False):
            with self.mistake():
                return decode(g, i, s, keep=keep)

        return Loaded(g, lambda i, s: by_name(run(i, s)), lambda i, s: run(i, s, keep=True))


def _rounded(name: str, change):
    """Operator ``name`` whose every requantisation rounds ``change(p, s, mode)`` instead of
    ``(p, s, mode)``: the value it reaches, its shift and its rounding, as a runtime holds
    them."""

    def op(real, p, ins, ctx):
        hook = lambda q, s, mode: ctx.rounding(*change(q, s, mode))  # noqa: E731
        return real(p, ins, replace(ctx, rounding=hook))

    return _patched(name, op)


def _double(name: str, label: str, doc: str, mistake):
    """A double class ``name``, engine ``label``, whose mistake is ``mistake()``."""
    return type(name, (_Double,), {"label": label, "__doc__": doc, "mistake": lambda _: mistake()})


Float32Conv = _double(
    "Float32Conv",
    "float32-conv",
    "A ``conv`` whose sum is held in float32 before its requantisation.",
    lambda: _rounded("conv", lambda q, s, mode: (_f32(q), s, mode)),
)
TiesEven = _double(
    "TiesEven",
    "ties-even",
    "half_up's ties rounded to even, in each ``rescale``.",
    lambda: _rounded(
        "rescale", lambda q, s, mode: (q, s, "half_even" if mode == "half_up" else mode)
    ),
)
NarrowInt32 = _double(
    "NarrowInt32",
    "narrow-int32",
    "The value each ``rescale`` requantises narrowed to int32 (int64 computed in int32).",
    lambda: _rounded("rescale", lambda q, s, mode: (_wrap32(q), s, mode)),
)


class Float32Clamp(_Double):
    """A ``clamp`` fused into one float32 min-max: its input and bounds held in float32."""

    label = "float32-clamp"

    def mistake(self):
        def clamp(real, p, ins, ctx):
            x = np.asarray(_f32(ins[0]), dtype=object)
            lo, hi = int(np.float32(p.lo)), int(np.float32(p.hi))
            return [np.minimum(np.maximum(x, lo), hi)]

        return _patched("clamp", clamp)


class CrashesOnPixelShuffle(_Double):
    """A runtime that dies on any model with a ``pixel_shuffle``."""

    label = "crash-pixel-shuffle"

    def mistake(self):
        def shuffle(real, p, ins, ctx):
            raise EngineCrashed("crash-pixel-shuffle: signal 11 (a test double's)")

        return _patched("pixel_shuffle", shuffle)


#: Each double's factory, by its engine name (the entry points the test writes).
DOUBLES = {
    d.label: d for d in (Float32Conv, TiesEven, NarrowInt32, Float32Clamp, CrashesOnPixelShuffle)
}
