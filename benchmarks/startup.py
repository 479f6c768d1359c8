"""Start-up time of the command line, each command a fresh process, interleaved over rounds
(A B C … A B C), as median ratios with their spread against a bare import in the same
rounds: ``waiexport --help`` and ``waiexport check`` of a small graph against ``python -c
"import numpy"``, and ``waiexport export`` of that graph (its self-check included) and the
main job, ``waiexport examples run`` (warm: numba's kernels compiled, the models kept),
against ``python -c "import numpy, onnxruntime"``. The load average is printed
with them, and then the main job's validations timed apart in this process.

Run: ``python benchmarks/startup.py [ROUNDS]``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _timing import fresh, interleaved, ratio

ROOT = Path(__file__).resolve().parent.parent


def main(rounds: int = 9) -> None:
    exe = shutil.which("waiexport") or "waiexport"
    small = Path(tempfile.mkdtemp()) / "small.whg1"
    small.write_bytes((ROOT / "examples" / "tiny_synth.whg1").read_bytes())
    commands = {
        "import numpy": [sys.executable, "-c", "import numpy"],
        "import numpy, onnxruntime": [sys.executable, "-c", "import numpy, onnxruntime"],
        "waiexport --help": [exe, "--help"],
        "waiexport check": [exe, "check", str(small)],
        "waiexport export": [exe, "export", str(small), "-o", str(small.with_suffix(".onnx"))],
        "waiexport examples run": [exe, "examples", "run"],
    }
    fresh(commands["waiexport examples run"])()  # numba's kernels compiled
    times = interleaved({name: fresh(cmd) for name, cmd in commands.items()}, rounds)
    for name, peer in (
        ("waiexport --help", "import numpy"),
        ("waiexport check", "import numpy"),
        ("waiexport export", "import numpy, onnxruntime"),
        ("waiexport examples run", "import numpy, onnxruntime"),
    ):
        print(
            f"{name}: {statistics.median(times[name]) * 1e3:.0f} ms, "
            f"{ratio(times, name, peer)} {peer} "
            f"({statistics.median(times[peer]) * 1e3:.0f} ms)"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    validations()


def validations() -> None:
    """Where the main job's time goes after its imports: reading the committed corpus and
    each of its three validations, timed one after the other in this process."""
    import time
    from collections import Counter

    from waiexport.conformance.generate import CORPUS
    from waiexport.conformance.validate import files_under, read_all, validate
    from waiexport.targets.engines import engine

    t = time.perf_counter()
    read = read_all(files_under([CORPUS]))
    parts = [f"reading the corpus {time.perf_counter() - t:.2f} s"]
    for name in ("reference", "ort-cpu", "npu-int8"):
        t = time.perf_counter()
        passed = Counter(r.status for r in validate(engine(name), read))["pass"]
        parts.append(f"validate {name} {time.perf_counter() - t:.2f} s ({passed} passed)")
    print("the main job's parts in one process: " + ", ".join(parts))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
