"""Vela as the compile step after TOSA for an Ethos-U target (:class:`~..format.Step`): an
export writes a folder (the TOSA model, its provenance, Vela's ``.tflite`` and summary); a
pack holds Vela's ``.tflite`` beside the TOSA model it came from
(:class:`~..format.Compiled`)."""

from __future__ import annotations

from pathlib import Path

from ..format import Step
from .compile import VelaReport, available, compile_vela

__all__ = ["VELA", "VelaStep"]


class VelaStep(Step):
    name = "vela"
    needs = "tosa-tools and ethos-u-vela are not installed: pip install 'waiexport[vela]'"

    def require(self) -> None:
        available()

    def compile(self, model: Path, config: str, outdir: Path) -> VelaReport:
        return compile_vela(model, config, outdir)


VELA = VelaStep()
