"""Each stage of the main job timed on realistic sets (``waiexport examples make --full``):
lower, certify, rewrite, export, an onnxruntime run and a reference run, and onnxruntime
against the reference as a ratio; then each exported model against onnxruntime's float32
model of the same graph, interleaved (``float_peer.compare``).

Run: ``python benchmarks/pipeline.py``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

from _timing import median_time
from float_peer import compare
from waiexport import write
from waiexport.certificate import Member, certificate_bytes, certify
from waiexport.capabilities.examples import make
from waiexport.capabilities.int_synth import lower_int_synth
from waiexport.capabilities.jpegai import lower_jpegai
from waiexport.reference import decode
from waiexport.rewrites.manager import rewrite_for
from waiexport.descriptions import target
from waiexport.targets.engines.ort import run_session
from waiexport.targets.exporter import export


def once(fn):
    t = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t


def stages(label: str, lower, hw) -> None:
    graphs, t_lower = once(lower)
    for role, g in graphs.items():
        data = write(g)
        _, t_cert = once(lambda: certificate_bytes(certify([Member.of(role, data, g)])))
        _, t_rw = once(lambda: rewrite_for(g, target("ort-cpu"), role))
        exp, t_exp = once(lambda: export(data, target("ort-cpu"), role))
        session = ort.InferenceSession(
            exp.prepared.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        rec = g.tensor(0)
        shape = (rec.channels, *hw)
        x = [np.random.default_rng(0).integers(rec.lo, rec.hi + 1, shape)]
        t_ort = median_time(lambda: run_session(exp.graph, session, x, []), 3)
        t_ref = median_time(lambda: decode(g, x, []), 3)
        print(
            f"{label} {role} on {list(shape)}: lower {t_lower:.2f} s, certify {t_cert:.2f} s, "
            f"rewrite {t_rw:.2f} s, export {t_exp:.2f} s, onnxruntime {t_ort * 1e3:.0f} ms, "
            f"reference {t_ref * 1e3:.0f} ms, reference/onnxruntime = {t_ref / t_ort:.1f}×"
        )
        compare(f"{label} {role} against float32", g, x[0], 15, role)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make(root, full=True)
        stages(
            "int_synth",
            lambda: {"synth": lower_int_synth((root / "int_synth.json").read_bytes())},
            (16, 16),
        )
        stages("jpegai", lambda: lower_jpegai(root / "jpegai"), (4, 4))


if __name__ == "__main__":
    main()
