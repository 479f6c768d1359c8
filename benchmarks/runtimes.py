"""Every third-party runtime engine over the whole committed corpus, as ``waiexport validate``
runs it (each in its worker process), and docs/runtimes.md's table: per engine (and the target
whose models it ran), how many vectors passed, failed, crashed, timed out, were declined or
were not for it, and what the differences were. Not a test: TVM compiles per decode shape
(about half a minute each the first time), so the whole run takes a while; the tests run each
engine on a small named subset.

    python benchmarks/runtimes.py [--time-limit S] [ENGINE[:TARGET] ...]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter

#: Each runtime on our ort-cpu model (before its own target) and on its own target (after),
#: then on the npu-int8 models; Qualcomm's HTP on a generic QDQ export (before) and on its own
#: target's (after); TFLite's kernel paths, each on its target's model and across.
DEFAULT = [
    "onnx-reference",
    "openvino-cpu:ort-cpu",
    "openvino-cpu",
    "tract:ort-cpu",
    "tract",
    "tvm-llvm:ort-cpu",
    "tvm-llvm",
    "openvino-cpu:npu-int8",
    "tract:npu-int8",
    "tvm-llvm:npu-int8",
    "qnn-htp:onnx-qdq",
    "qnn-htp",
    "tflm",
    "litert",
    "litert-ref:litert",
    "litert-xnnpack:tflm",
]
COLUMNS = ["pass", "fail", "crashed", "timed_out", "declined", "skip"]


def _kind(reason: str) -> str:
    """What a failure's reason says, without its node names and numbers."""
    reason = re.sub(r"decode \d+:? ?", "", reason)
    for words in (
        "floating point",
        "float32 accumulation",
        "int64 narrowed",
        "rounding to nearest",
        "missing",
        "differs",
        "killed by signal",
        "no answer within",
        "cannot take",
        "cannot load",
    ):
        if words in reason:
            return words
    return reason[:60]


def run(spec: str, time_limit: float) -> dict:
    engine, _, target = spec.partition(":")
    t0 = time.perf_counter()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "waiexport.cli",
            "validate",
            "--json",
            "--engine",
            engine,
            "--time-limit",
            str(time_limit),
            *(["--target", target] if target else []),
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if not r.stdout.startswith("{"):
        return {
            "spec": spec,
            "error": (r.stderr.strip().splitlines() or ["?"])[-1],
            "seconds": seconds,
        }
    rep = json.loads(r.stdout)
    kinds = Counter(
        _kind(v["reason"])
        for v in rep["vectors"]
        if v["status"] in ("fail", "crashed", "timed_out", "declined")
    )
    return {
        "spec": spec,
        "totals": {k: int(v) for k, v in rep["totals"].items()},
        "kinds": kinds,
        "seconds": seconds,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*", default=DEFAULT)
    ap.add_argument("--time-limit", type=float, default=120.0)
    args = ap.parse_args()
    print(
        "| engine | target | passed | failed | crashed | timed out | declined | not for it "
        "| what differed | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec in args.specs:
        res = run(spec, args.time_limit)
        engine, _, target = spec.partition(":")
        target = target or ("ort-cpu" if engine == "onnx-reference" else engine)
        if "error" in res:
            print(f"| `{engine}` | {target} | {res['error']} |||||||")
            continue
        t = res["totals"]
        kinds = "; ".join(f"{k} {n}" for k, n in res["kinds"].most_common(4)) or "none"
        print(
            f"| `{engine}` | {target} | "
            + " | ".join(str(t[c]) for c in COLUMNS)
            + f" | {kinds} | {res['seconds']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
