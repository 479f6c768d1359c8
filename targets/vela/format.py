"""An Ethos-U target's models (:class:`waiexport.targets.format.Format`): the TOSA model,
self-checked on the TOSA reference model, compiled by Vela for the NPU. An export writes a
folder (the TOSA model, its provenance, Vela's ``.tflite`` and summary), whole or not at all;
a pack holds Vela's ``.tflite`` beside the TOSA model it came from."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from waiexport.files import output_folder

from ..errors import EngineUnavailable
from ..forked import cores
from ..tosa.format import TosaFormat
from .compile import available, compile_vela

__all__ = ["VELA", "VelaFormat"]


class VelaFormat(TosaFormat):
    name = "vela"
    writes_folder = "export"
    judge_at_size = ""    # IREE runs the tosa target's models, not one narrowed for Vela

    def require(self) -> None:
        try:
            super().require()
        except EngineUnavailable:
            raise EngineUnavailable("tosa-tools and ethos-u-vela are not installed: pip "
                                    "install 'waiexport[vela]'") from None
        available()

    def save(self, exp, model, output: Path, stem: str) -> dict:
        with output_folder(output, self.writes_folder) as work:
            tosa = work / f"{stem}.tosa"
            for name, data in self.files(exp, model, tosa.name).items():
                (work / name).write_bytes(data)
            report = compile_vela(tosa, exp.target.vela, work)
        report.tflite = output / report.tflite.name
        name = exp.target.name
        lines = [f"every node fits {name} (its limits: waiexport targets show {name})",
                 *report.lines()]
        if report.cpu_ops:
            lines.append(f"  {report.cpu_ops} operators are not on the NPU")
        return {"model": str(output / tosa.name), "bytes": len(model.data),
                "report": {"vela": report.as_dict()}, "lines": lines}

    @contextmanager
    def packing(self):
        """Vela's compiles of a pack's models run beside the rest of the packing, one a core
        (each is a process of its own: 0.35 s, most of a pack's time); each model's entry
        is filled in when every compile has ended. A compile Vela refuses ends the pack
        with its message (:class:`.compile.VelaError`)."""
        compiles: list = []
        with ThreadPoolExecutor(cores()) as pool:
            try:
                yield pool, compiles
                for entry, folder, job in compiles:
                    tosa, tflite = entry["tosa"], job.result().tflite
                    entry.clear()
                    entry.update(path=str(tflite.relative_to(folder)), tosa=tosa,
                                 sha256=hashlib.sha256(tflite.read_bytes()).hexdigest())
            except BaseException:     # nothing more is compiled for a pack that will not be
                pool.shutdown(cancel_futures=True)
                raise

    def packed(self, exp, model, folder: Path, stem: str, later) -> dict:
        tosa = super().packed(exp, model, folder, stem, None)
        pool, compiles = later
        entry = {"tosa": tosa}
        compiles.append((entry, folder, pool.submit(compile_vela, folder / tosa["path"],
                                                    exp.target.vela, folder / "models")))
        return entry


VELA = VelaFormat()
