"""The ``tosa`` target's models on the TOSA reference model of tosa-tools, in process:
``acc32``, ``wai-ops/1-npu``. TOSA shapes are static, so a model is built per decode shape;
a status other than ``TOSA_VALID`` fails the decode with the reference model's own message."""

from __future__ import annotations

from importlib import import_module

from ..errors import EngineUnavailable
from ..tosa.format import TOSA
from .base import ModelEngine, versions

__all__ = ["TosaRefEngine"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "tosa-ref",
        "help": "the tosa export on the TOSA reference model (tosa-tools)",
        "cls": "TosaRefEngine",
        "isolated": True,
    },
)


class TosaRefEngine(ModelEngine):
    """The ``tosa`` target's model on the TOSA reference model (tosa-tools), in process."""

    name, formats = "tosa-ref", ("tosa",)

    def __init__(self, target_name: str = "tosa"):
        try:  # availability, here rather than mid-run
            import_module("tosa_reference_model")
        except ImportError:
            raise EngineUnavailable(
                "tosa-tools is not installed: pip install 'waiexport[tosa]'"
            ) from None
        super().__init__(target_name)

    def describe(self) -> dict:
        return {
            "runs_on": "the TOSA reference model of tosa-tools, in process",
            "packages": versions("tosa-tools", "waiexport", "numpy"),
        }

    def open(self, model):
        return lambda feed: TOSA.run(model, feed)
