"""Start-up time of the command line against ``python -c "import numpy"``, each a fresh
process, interleaved over rounds (A B C A B C): ``waiexport --help`` and ``waiexport check``
of a small graph, as median ratios with their spread.

Run: ``python benchmarks/startup.py``.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(rounds: int = 9) -> None:
    exe = shutil.which("waiexport") or "waiexport"
    small = Path(tempfile.mkdtemp()) / "small.whg1"
    small.write_bytes((ROOT / "examples" / "tiny_synth.whg1").read_bytes())
    commands = {"import numpy": [sys.executable, "-c", "import numpy"],
                "waiexport --help": [exe, "--help"],
                "waiexport check": [exe, "check", str(small)]}
    times = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True)
            times[name].append(time.perf_counter() - t)
    base = times["import numpy"]
    print(f"import numpy: {statistics.median(base) * 1e3:.0f} ms (median of {rounds})")
    for name in list(commands)[1:]:
        ratios = sorted(a / b for a, b in zip(times[name], base))
        print(f"{name}: {statistics.median(times[name]) * 1e3:.0f} ms, "
              f"{statistics.median(ratios):.1f}x the numpy import "
              f"(spread {ratios[0]:.1f}-{ratios[-1]:.1f}x)")


if __name__ == "__main__":
    main()
