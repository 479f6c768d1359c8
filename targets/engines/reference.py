"""The exact reference as an engine: ``acc64``, all of ``wai-ops/1``, and the stage
operators (§5E)."""

from __future__ import annotations

from waiexport.reference import decode
from waiexport.reference.stage import run

from waiexport.load import load

from ..outputs import by_name
from .base import Engine, Loaded, versions

__all__ = ["ReferenceEngine"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "reference",
        "help": "the exact reference (acc64, all of wai-ops/1)",
        "cls": "ReferenceEngine",
    },
)


class ReferenceEngine(Engine):
    """The exact reference: ``acc64``, all of ``wai-ops/1``."""

    name, profile, subset = "reference", "acc64", "full"

    def load(self, data: bytes) -> Loaded:
        g = load(data, profile=self.profile, subset=self.subset).graph
        return Loaded(
            g,
            lambda inputs, scalars: by_name(decode(g, inputs, scalars)),
            lambda inputs, scalars: decode(g, inputs, scalars, keep=True),
        )

    def stage(self, op: str, inp: dict, modes: dict) -> dict:
        """The stage operator ``op`` of :mod:`waiexport.reference.stage` on a vector's ``in``."""
        return run(op, inp, modes)

    def describe(self) -> dict:
        return {
            "runs_on": "the exact Python reference of this package (numba kernels for "
            "the convolution sums), on this machine's CPU",
            "packages": versions("waiexport", "numpy", "numba"),
        }
