"""The main job, end to end on a folder of example sets: lower → check → rewrite for
``ort-cpu`` → export → run on onnxruntime → bit-exact against the reference; then validate the
committed corpus on the reference and on both exported targets. Each step prints one line."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from pathlib import Path
from typing import Callable

from waiexport.capabilities.lower import lower_set
from waiexport.certificate import certificate_bytes
from waiexport.refusal import Refusal
from waiexport.whg1 import write

from .common import progress

__all__ = ["main_job"]


def main_job(root: Path, say: Callable[[str], None]) -> bool:
    """Run the main job on the sets under ``root``; True when every check passes."""
    from waiexport.conformance.generate import CORPUS
    from waiexport.conformance.validate import NO_CLAIM, STATUSES, files_under, read_all, validate
    from waiexport.targets.engines import engine
    from waiexport.targets.exporter import self_check

    ok = True
    ort = engine("ort-cpu")  # its export: the model validate runs, kept on disk
    lowered: dict = {}
    for form, source in (("int_synth", root / "int_synth.json"), ("jpegai", root / "jpegai")):
        t0 = time.perf_counter()
        if not source.exists():
            say(f"{form}: no {source.name} in {root}: skipped")
            continue
        try:
            graphs, cert = lower_set(form, source)
        except Refusal as r:
            say(f"{form}: REFUSED at its lowering: {r}")
            ok = False
            continue
        lowered[form] = graphs
        v = cert["verdict"]
        say(
            f"{form}: lowered {', '.join(graphs)}; certificate sha256 "
            f"{hashlib.sha256(certificate_bytes(cert)).hexdigest()[:16]}…: acc32 "
            f"{'yes' if v['acc32'] else 'no'}, npu {'yes' if v['npu'] else 'no'}"
        )
        for role, g in graphs.items():
            exp = ort.export(write(g))
            probes, difference = self_check(exp)
            same = difference is None
            ok &= same and probes > 0
            say(
                f"  {role}: {len(exp.rewrites)} rewrites for ort-cpu, "
                f"{exp.format.nodes(exp.built())} ONNX nodes, {probes} decodes on onnxruntime "
                f"{'bit-exact against the reference' if same else 'DIFFER from the reference'}"
            )
        say(f"  ({time.perf_counter() - t0:.1f} s)")
    streams = root / "jpegai" / "streams"
    if (streams / "streams.json").exists() and "jpegai" not in lowered:
        say("jpegai decode: not run (the bundle was refused at its lowering)")
    elif (streams / "streams.json").exists():
        try:
            ok &= _jpegai_decode(root / "jpegai", lowered["jpegai"], streams, say)
        except (Refusal, OSError) as r:
            say(f"jpegai decode: REFUSED: {r}")
            ok = False
    read = read_all(files_under([CORPUS]))
    for name in ("reference", "ort-cpu", "npu-int8"):
        with progress(sum(len(v) for _, v in read), f"validate {name}") as bar:
            totals = Counter(r.status for r in validate(engine(name), read, progress=bar.update))
        ok &= not any(totals[k] for k in NO_CLAIM)
        say(
            f"validate {name}: "
            + ", ".join(
                f"{totals[k]} {STATUSES[k]}" for k in STATUSES if totals[k] or k in ("pass", "fail")
            )
        )
    say("every check passed" if ok else "SOME CHECKS FAILED")
    return ok


def _jpegai_decode(bundle: Path, graphs: dict, streams: Path, say: Callable[[str], None]) -> bool:
    """The bundle's seeded payloads decoded end to end (§13.6.1) with its scale graphs
    (``graphs``, lowered already) on the reference and on ort-cpu: True when every plane's
    ``z`` and ``y_q`` are the symbols the payloads were made from."""
    import json

    from waiexport.capabilities.jpegai_entropy import PLANES, decode_planes, digest, read_flags
    from waiexport.capabilities.jpegai import read_norm
    from waiexport.targets.engines import engine

    t0 = time.perf_counter()
    want = json.loads((streams / "streams.json").read_text())["planes"]
    norm = read_norm(bundle)
    flags = {
        p: read_flags((streams / f"grfs_{p}.txt").read_bytes(), spec.channels, p)
        for p, spec in PLANES.items()
    }
    latents = {s: (streams / f"{s.lower()}.bin").read_bytes() for s in ("SORP", "SORS")}
    ok = True
    for name in ("reference", "ort-cpu"):
        eng = engine(name)
        planes = decode_planes(
            norm,
            graphs,
            lambda role, data: eng.load(data),
            (streams / "soz.bin").read_bytes(),
            latents,
            flags,
        )
        back = all(
            pl.refused is None
            and digest(pl.values["z"]) == want[p]["z_sha256"]
            and digest(pl.values["y_q"]) == want[p]["y_q_sha256"]
            for p, pl in planes.items()
        )
        ok &= back
        coded = ", ".join(
            f"{p} {int(pl.values['mask'].sum())} of {pl.values['mask'].size}"
            for p, pl in planes.items()
        )
        say(
            f"jpegai decode, scale graphs on {name}: "
            + (
                "every hyper-latent and latent symbol recovered"
                if back
                else "SYMBOLS DIFFER from those the payloads were made from"
            )
            + f" (positions coded: {coded})"
        )
    say(f"  ({time.perf_counter() - t0:.1f} s)")
    return ok
