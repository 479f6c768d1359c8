"""Arm's Vela on our TOSA models: the compile for one Ethos-U configuration, and its report
(the NPU's share of operators, cycles, SRAM / flash / DRAM use) read from Vela's own summary.
Vela's numerics are not checked here: nothing here runs its output; a board or an FVP does,
on the vectors (``waiexport vectors pack``)."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import version
from importlib.util import find_spec
from pathlib import Path

from ..errors import CompileError, EngineUnavailable

__all__ = ["VelaReport", "VelaError", "compile_vela", "available", "UNCHECKED"]

#: What a Vela compile does not show, said wherever its report is.
UNCHECKED = (
    "Vela's numerics are not checked by this command: the evidence is the vectors "
    "run on a board or a Corstone FVP (waiexport vectors pack, then "
    "waiexport validate --results)"
)


@dataclass
class VelaReport:
    """What Vela said of one compile."""

    output: Path  # Vela's .tflite
    npu_ops: int
    cpu_ops: int
    cycles_npu: int
    cycles_total: int
    sram_kib: float
    flash_kib: float
    dram_kib: float
    inference_s: float
    vela: str
    on_cpu: dict = field(default_factory=dict)  # each operator Vela placed on the CPU: why

    def as_dict(self) -> dict:
        return {
            "tflite": str(self.output),
            "npu_operators": self.npu_ops,
            "cpu_operators": self.cpu_ops,
            "cycles_npu": self.cycles_npu,
            "cycles_total": self.cycles_total,
            "sram_kib": f"{self.sram_kib:g}",
            "off_chip_flash_kib": f"{self.flash_kib:g}",
            "dram_kib": f"{self.dram_kib:g}",
            "inference_s": f"{self.inference_s:.6g}",
            "vela": self.vela,
            "on_cpu": self.on_cpu,
            "numerics": UNCHECKED,
        }

    def lines(self) -> list[str]:
        share = self.npu_ops / max(self.npu_ops + self.cpu_ops, 1)
        return (
            [
                f"Vela {self.vela}: {self.npu_ops} NPU operators, {self.cpu_ops} CPU "
                f"({share:.0%} on the NPU); {self.cycles_npu} NPU cycles, {self.cycles_total} "
                f"in all ({self.inference_s * 1e3:.3f} ms at Vela's clock); SRAM "
                f"{self.sram_kib:g} KiB, off-chip flash {self.flash_kib:g} KiB, DRAM "
                f"{self.dram_kib:g} KiB",
                f"  {self.output}",
            ]
            + [f"  on the CPU: {what} (Vela: {why})" for what, why in self.on_cpu.items()]
            + [f"  {UNCHECKED}"]
        )


class VelaError(CompileError):
    """Vela refused or failed the compile: its own message."""

    compiler = "vela"


def available() -> None:
    """Raise :class:`EngineUnavailable` naming the extra when Vela is not installed."""
    if find_spec("ethosu") is None:
        raise EngineUnavailable("ethos-u-vela is not installed: pip install 'waiexport[vela]'")


def compile_vela(tosa: Path, accelerator: str, outdir: Path) -> VelaReport:
    """Compile the TOSA flatbuffer ``tosa`` for ``accelerator`` (Vela's
    ``--accelerator-config``) into ``outdir``: ``<stem>_vela.tflite`` and Vela's summary
    beside it, made in a folder of this compile's own, so nothing else in ``outdir`` is read
    or overwritten; raises :class:`VelaError` with Vela's message."""
    available()
    with tempfile.TemporaryDirectory(prefix=".vela-", dir=outdir) as tmp:
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "ethosu.vela",
                "--accelerator-config",
                accelerator,
                "--output-dir",
                tmp,
                str(tosa),
            ],
            capture_output=True,
            text=True,
        )
        said = r.stdout + r.stderr
        if r.returncode:
            lines = [
                line
                for line in said.splitlines()
                if line.strip() and not line.startswith("Warning")
            ]
            raise VelaError((lines or ["no message"])[-1][:400])
        counts = {
            kind: int(m.group(1))
            for kind in ("CPU", "NPU")
            for m in [re.search(rf"{kind} operators = (\d+)", said)]
            if m
        }
        on_cpu = _placed(said)
        [summary] = sorted(Path(tmp).glob(f"{tosa.stem}_summary_*.csv"))
        row = next(csv.DictReader(summary.open()))
        for made in Path(tmp).iterdir():
            os.replace(made, outdir / made.name)
    return VelaReport(
        outdir / f"{tosa.stem}_vela.tflite",
        counts.get("NPU", 0),
        counts.get("CPU", 0),
        int(float(row["cycles_npu"])),
        int(float(row["cycles_total"])),
        float(row["sram_memory_used"]),
        float(row["off_chip_flash_memory_used"]),
        float(row["dram_memory_used"]),
        float(row["inference_time"]),
        version("ethos-u-vela"),
        on_cpu,
    )


def _placed(said: str) -> dict:
    """What Vela's output says it placed on the CPU: ``"3 GATHER"`` → its reason, by
    operator type."""
    found = re.findall(r"operator: (\w+), ofm: '[^']*'\nReason: ([^\n]*)", said)
    counts, why = Counter(op for op, _ in found), dict(found)
    return {f"{n} {op}": why[op] for op, n in sorted(counts.items())}
