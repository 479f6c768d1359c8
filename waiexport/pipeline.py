"""The main job, end to end on a folder of example sets: lower → check → rewrite for
``ort-cpu`` → export → run on onnxruntime → bit-exact against the reference; then validate the
committed corpus on the reference and on both exported targets. Each step prints one line."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Callable

from .certificate import Member, certificate_bytes, certify
from .graph import Graph
from .lowering import int_synth, jpegai
from .whg1 import write

__all__ = ["lower_set", "main_job"]


def lower_set(form: str, source: Path) -> tuple[dict[str, Graph], dict]:
    """A set in a registered form lowered (§13): its graphs by role and its certificate."""
    if form == "int_synth":
        data = source.read_bytes()
        graphs = {int_synth.ROLE: int_synth.lower_int_synth(data)}
        meta = dict(capability=int_synth.CAPABILITY, lowering=int_synth.LOWERING,
                    set_sha256=hashlib.sha256(data).hexdigest())
    elif form == "jpegai":
        graphs = jpegai.lower_jpegai(source)
        # a bundle's digest is its wai.prior.set listing's, which this tool does not make
        meta = dict(capability=jpegai.CAPABILITY, lowering=jpegai.LOWERING, set_sha256=None)
    else:
        raise ValueError(f"unknown form {form!r}: int_synth or jpegai")
    members = [Member.of(role, write(g), g) for role, g in graphs.items()]
    return graphs, certify(members, **meta)


def main_job(root: Path, say: Callable[[str], None]) -> bool:
    """Run the main job on the sets under ``root``; True when every check passes."""
    from .conformance.generate import CORPUS
    from .conformance.validate import files_under, validate
    from .targets.descriptions import target
    from .targets.engines import engine
    from .targets.exporter import export, self_check

    ok = True
    for form, source in (("int_synth", root / "int_synth.json"), ("jpegai", root / "jpegai")):
        t0 = time.perf_counter()
        graphs, cert = lower_set(form, source)
        v = cert["verdict"]
        say(f"{form}: lowered {', '.join(graphs)}; certificate sha256 "
            f"{hashlib.sha256(certificate_bytes(cert)).hexdigest()[:16]}…: acc32 "
            f"{'yes' if v['acc32'] else 'no'}, npu {'yes' if v['npu'] else 'no'}")
        for role, g in graphs.items():
            exp = export(write(g), target("ort-cpu"), role)
            applied = sum(c.applied for c in exp.outcome.changes)
            probes, difference = self_check(exp)
            same = difference is None
            ok &= same and probes > 0
            say(f"  {role}: {applied} rewrites for ort-cpu, {len(exp.model.graph.node)} ONNX "
                f"nodes, {probes} decodes on onnxruntime "
                f"{'bit-exact against the reference' if same else 'DIFFER from the reference'}")
        say(f"  ({time.perf_counter() - t0:.1f} s)")
    for name in ("reference", "ort-cpu", "npu-int8"):
        results = validate(engine(name), files_under([CORPUS]))
        failed = sum(r.status == "fail" for r in results)
        passed = sum(r.status == "pass" for r in results)
        ok &= failed == 0
        say(f"validate {name}: {passed} passed, {failed} failed, "
            f"{len(results) - passed - failed} not for this engine")
    say("every check passed" if ok else "SOME CHECKS FAILED")
    return ok
