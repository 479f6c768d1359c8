"""The ``tosa`` target's models compiled by IREE for this CPU and run by IREE's runtime, an
executor independent of the TOSA reference model: the flatbuffer → ``tosa-opt`` (generic
MLIR) → IREE ``llvm-cpu`` (``--iree-llvmcpu-target-cpu=host``) → a ``.vmfb``, cached on disk
by the flatbuffer's digest, the IREE compiler's version and this CPU, so a second run
compiles nothing. IREE checks none of TOSA's domain conditions: the export keeps every value
inside them on its own. A compile or runtime error fails that decode with IREE's message."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sysconfig
import tempfile
from importlib import import_module

import numpy as np

from waiexport.caches import cpu_key, host_cpu, keep, kept, user_cache

from ..errors import EngineFailure, EngineUnavailable
from .base import versions
from .tosa_ref import TosaRefEngine

__all__ = ["IreeCpuEngine"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "iree-cpu",
        "help": "the tosa export compiled by IREE for this CPU (llvm-cpu) and run by IREE",
        "cls": "IreeCpuEngine",
        "isolated": True,
    },
)


def _tosa_opt() -> str:
    """tosa-tools' ``tosa-opt``: beside this interpreter's scripts, on PATH, or in the
    ``bin/`` folder the wheel installs into site-packages."""
    for candidate in (
        os.path.join(sysconfig.get_path("scripts"), "tosa-opt"),
        shutil.which("tosa-opt"),
        os.path.join(sysconfig.get_path("purelib"), "bin", "tosa-opt"),
    ):
        if candidate and os.path.exists(candidate):
            return candidate
    raise EngineUnavailable(
        "tosa-opt (from tosa-tools) is not installed: pip install 'waiexport[tosa]'"
    )


class IreeCpuEngine(TosaRefEngine):
    """The ``tosa`` target's model compiled by IREE for this CPU (see the module's text)."""

    name = "iree-cpu"

    def __init__(self, target_name: str = "tosa"):
        try:  # availability, here rather than mid-run; the iree extra brings tosa-tools
            for module in ("iree.compiler", "iree.runtime", "tosa_serializer"):
                import_module(module)
        except ImportError:
            raise EngineUnavailable(
                "IREE is not installed: pip install 'waiexport[iree]'"
            ) from None
        super().__init__(target_name)
        self.compiled = 0  # compiles this engine ran (the rest came from the cache)
        self._versions = versions("iree-base-compiler", "iree-base-runtime")
        self._cpu = host_cpu()

    def describe(self) -> dict:
        return {
            "runs_on": f"IREE llvm-cpu code for this CPU ({self._cpu}), IREE's local-task runtime",
            "packages": {**self._versions, **versions("tosa-tools", "waiexport")},
            "target_cpu": "host",
        }

    def _vmfb(self, data: bytes) -> bytes:
        import iree.compiler as ic

        key = hashlib.sha256(data + json.dumps([self._versions, cpu_key()]).encode()).hexdigest()
        folder = user_cache("iree")
        found = kept(folder, key, ".vmfb")
        if found is not None:
            with open(found, "rb") as f:
                return f.read()
        with tempfile.TemporaryDirectory() as tmp:
            fb, empty, mlir = (os.path.join(tmp, n) for n in ("g.tosa", "e.mlir", "g.mlir"))
            with open(fb, "wb") as f:
                f.write(data)
            open(empty, "w").close()
            r = subprocess.run(
                [
                    _tosa_opt(),
                    f"--tosa-deserialize=tosa-flatbuffer-filename={fb}",
                    "--mlir-print-op-generic",
                    empty,
                    "-o",
                    mlir,
                ],
                capture_output=True,
                text=True,
            )
            if r.returncode:
                raise EngineFailure(f"tosa-opt: {(r.stderr.strip().splitlines() or ['?'])[0]}")
            try:
                vmfb = ic.compile_file(
                    mlir,
                    target_backends=["llvm-cpu"],
                    extra_args=["--iree-llvmcpu-target-cpu=host"],
                )
            except Exception as e:  # IREE's CompilerToolError carries the compiler's output
                raise EngineFailure.said("IREE compiler", e) from None
        self.compiled += 1
        keep(folder, key, ".vmfb", lambda path: path.write_bytes(vmfb))
        return vmfb

    def open(self, model):
        vmfb = self._vmfb(model.data)
        return lambda feed: self._execute(vmfb, list(feed.values()))

    def _execute(self, vmfb: bytes, inputs) -> dict:
        import iree.runtime as irt

        try:
            ctx = irt.SystemContext(config=irt.Config("local-task"))
            ctx.add_vm_module(irt.VmModule.copy_buffer(ctx.instance, vmfb))
            outs = ctx.modules.module["main"](*inputs)
        except EngineFailure:
            raise
        except Exception as e:  # IREE's runtime raises its own error types
            raise EngineFailure.said("IREE runtime", e) from None
        outs = outs if isinstance(outs, (tuple, list)) else [outs]
        # copied while IREE's buffers live: a view of one outlives its mapping (garbage)
        return {f"out{j}": np.asarray(o).copy() for j, o in enumerate(outs)}
