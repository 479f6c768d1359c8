"""The ``jpegai`` commands: the ``wai.image.jpegai`` entropy path (§13.6.1)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from waiexport.files import npy_bytes
from waiexport.jsonio import report_json
from waiexport.refusal import Refusal
from waiexport.targets.errors import EngineFailure

from .common import (engine_option, fail, read_file, writable, write_folder, engine_named,
                     progress, run_vectors)

#: The most a segment's payload file may hold (a full-HD stream's are a few MB).
PAYLOAD_LIMIT = 1 << 28
#: The most a GRFS flags file may hold (160 flags, as characters or a JSON array, with room).
FLAGS_LIMIT = 1 << 20
#: What a decode writes in its folder: each plane's arrays and the summary.


@click.group("jpegai")
def jpegai():
    """The wai.image.jpegai entropy path (section 13.6.1)."""


@jpegai.command("decode")
@click.argument("bundle")
@click.option("--soz", required=True, help="The SOZ segment's payload (both planes' "
                                           "hyper-latents, luma first).")
@click.option("--sorp", required=True, help="The SORP segment's payload (the luma latent).")
@click.option("--sors", required=True, help="The SORS segment's payload (the chroma latent).")
@click.option("--grfs-y", "grfs_y", required=True,
              help="The luma GRFS flags: 160 '0'/'1' characters, or a JSON array.")
@click.option("--grfs-uv", "grfs_uv", required=True,
              help="The chroma GRFS flags: 96 '0'/'1' characters, or a JSON array.")
@engine_option("The engine that runs the scale graphs.")
@click.option("--compare", is_flag=True,
              help="Run the scale graphs on the reference too and report, per plane, whether "
                   "v, the mask, likely, sigma_idx and y_q agree, and where they first differ.")
@click.option("--no-validate", "no_validate", is_flag=True,
              help="Do not validate the engine on the committed corpus for the summary.")
@click.option("-o", "--output", required=True, help="The folder for the .npy files and "
                                                    "summary.json.")
@click.option("--json", "as_json", is_flag=True,
              help="Print summary.json (canonical JSON): {compare, engine, planes, validated}.")
def jpegai_decode(bundle, soz, sorp, sors, grfs_y, grfs_uv, engine_name, compare, no_validate,
                  output, as_json):
    """Decode both planes' entropy path: the segment payloads to z, v, the mask, likely,
    sigma_idx and y_q (section 13.6.1 steps 1-4).

    The codestream syntax (ISO/IEC 6048-1) is not in our text: extract each segment's
    payload (the bytes after its marker and length field) and the component headers' GRFS
    flags yourself. The scale graphs run on --engine; the stage operators on the host. Writes
    OUTPUT/<plane>_<name>.npy (plane y or uv) and OUTPUT/summary.json with their SHA-256
    digests (little-endian int64, CHW), the engine, and whether it passes validate on the
    committed corpus for its profile (section 12: only a conforming implementation backs the
    claim).

    \b
    Exit status: 0 when both planes decode (and, with --compare, agree with the reference);
    1 when --compare finds a difference; 2 for a bundle that fails a load check or flags of
    the wrong count (model_mismatch), a payload the window runs out of (stream_exhausted), a
    path that cannot be read or written, or an unknown engine or one that fails (crashes,
    runs past its time limit, reports an error of its own).
    Example: waiexport jpegai decode examples/jpegai --soz examples/jpegai/streams/soz.bin
      --sorp examples/jpegai/streams/sorp.bin --sors examples/jpegai/streams/sors.bin
      --grfs-y examples/jpegai/streams/grfs_y.txt --grfs-uv examples/jpegai/streams/grfs_uv.txt
      --engine ort-cpu --compare -o /tmp/decoded
    """
    from waiexport.capabilities.jpegai_entropy import (PLANES, compare as compare_planes,
                                                       decode_planes, digest, hyper_latent,
                                                       read_flags)
    from waiexport.whg1 import write
    from waiexport.capabilities.jpegai import read_bundle
    from waiexport.reference.stage import StageRefusal
    src = Path(bundle)
    if not src.is_dir():
        fail(bundle, "not-found" if not src.exists() else "not-a-folder", "-",
             "a wai.image.jpegai bundle is a folder holding norm.json and weights/")
    try:
        norm, graphs = read_bundle(src)
    except Refusal as r:
        fail(bundle, r.code, r.where, r.detail)
    payloads = {name: (path, read_file(path, PAYLOAD_LIMIT))
                for name, path in (("SOZ", soz), ("SORP", sorp), ("SORS", sors))}
    flags = {}
    for plane, path in (("y", grfs_y), ("uv", grfs_uv)):
        try:
            flags[plane] = read_flags(read_file(path, FLAGS_LIMIT), PLANES[plane].channels,
                                      f"GRFS flags of plane {plane}")
        except Refusal as r:
            fail(path, r.code, r.where, r.detail)
    eng = engine_named(engine_name)
    writable(output, folder="jpegai decode")
    sides = {"engine": eng} | ({"reference": engine_named("reference")} if compare else {})
    planes: dict = {}
    latents = {k: payloads[k][1] for k in ("SORP", "SORS")}
    hyper = {}
    for plane in PLANES:            # what can be refused is refused before the bar
        try:
            hyper[plane] = hyper_latent(payloads["SOZ"][1], norm, plane)
        except StageRefusal as r:
            fail(payloads["SOZ"][0], r.code, f"hyper-latent, position {r.at}", r.detail)
    loaded = {(side, spec.role): _load_scale(e, write(graphs[spec.role]), spec.role)
              for side, e in sides.items() for spec in PLANES.values()}
    label = "decoding both planes" + (" on the engine and the reference" if compare else "")
    with progress(2 * len(sides), label) as bar:
        for side in sides:
            try:
                planes[side] = decode_planes(norm, graphs, lambda role, _, side=side: loaded[
                    side, role], payloads["SOZ"][1], latents, flags, progress=bar.update,
                    hyper=hyper)
            except EngineFailure as e:      # a crash, a time limit, an error of its own
                fail(f"--engine {sides[side].name}", "engine-failure", "scale graph", str(e))
    mine = planes["engine"]
    refused = {p: pl.refused for p, pl in mine.items() if pl.refused}
    report = {p: compare_planes(mine[p], planes["reference"][p]) for p in mine} if compare \
        else None
    differs = compare and any(not d["agree"] for c in report.values() for d in c.values())
    if refused and not differs:     # a refused decode gives nothing but its one line
        plane, r = next(iter(refused.items()))
        fail(payloads[PLANES[plane].segment][0], r.code,
             f"latent of plane {plane}, position {r.at}", r.detail)
    summary = {"engine": eng.name, "planes": {}, "compare": report, "validated": None}
    files = {}
    for plane, pl in mine.items():
        summary["planes"][plane] = {}
        for name, a in pl.values.items():
            files[f"{plane}_{name}.npy"] = npy_bytes(a)
            summary["planes"][plane][name] = {"shape": list(a.shape), "sha256": digest(a)}
        if pl.refused:
            summary["planes"][plane]["refused"] = {"code": pl.refused.code, "at": pl.refused.at}
    if not no_validate:
        summary["validated"] = _validated(eng)
    files["summary.json"] = (report_json(summary) + "\n").encode()
    write_folder(output, files, "jpegai decode")
    out = Path(output)
    if as_json:
        click.echo(report_json(summary))
    else:
        _say_decode(summary, out)
    sys.exit(1 if differs else 0)


def _load_scale(eng, data: bytes, role: str):
    """The engine's load of a scale graph; one that cannot take it ends in one line."""
    from waiexport.targets.errors import DoesNotFit, NotForEngine
    try:
        return eng.load(data)
    except Refusal as r:
        fail(f"--engine {eng.name}", r.code, role, r.detail)
    except (DoesNotFit, NotForEngine) as e:
        fail(f"--engine {eng.name}", "does-not-fit", role, str(e))
    except EngineFailure as e:
        fail(f"--engine {eng.name}", "engine-failure", role, str(e))


def _validated(eng) -> dict:
    """Whether ``eng`` passes validate on the committed corpus for its profile."""
    from waiexport.conformance.generate import CORPUS
    from waiexport.conformance.validate import files_under, read_all, report
    read = read_all(files_under([CORPUS]))
    rep = report(eng, run_vectors(eng, read, f"validating {eng.name} on the committed corpus"))
    t = rep["totals"]
    return {"profile": eng.profile, "passed": t["pass"], "failed": t["fail"],
            "ran_elsewhere": t["elsewhere"], "crashed": t["crashed"],
            "timed_out": t["timed_out"], "declined": t["declined"],
            "not_for_engine": t["skip"], "conforming": rep["claim"] is not None}


def _say_decode(summary: dict, out: Path) -> None:
    """The decode's summary in lines."""
    for plane, values in summary["planes"].items():
        parts = [f"{name} {v['shape']} {v['sha256'][:16]}" for name, v in values.items()
                 if name != "refused"]
        click.echo(f"plane {plane}: " + ", ".join(parts))
        if "refused" in values:
            click.echo(f"plane {plane}: latent refused: {values['refused']['code']} at "
                       f"position {values['refused']['at']}")
    for plane, c in (summary["compare"] or {}).items():
        same = [n for n, d in c.items() if d["agree"]]
        click.echo(f"plane {plane} against the reference: " +
                   (f"{', '.join(same)} agree" if same else "nothing agrees"))
        for name, d in c.items():
            if d["agree"]:
                continue
            if "refused_on" in d:
                click.echo(f"  {name}: the latent decode is refused on the {d['refused_on']} "
                           f"side ({d['code']} at position {d['at']})")
                continue
            if "shapes" in d:
                click.echo(f"  {name}: the engine's has shape {d['shapes'][0]}, the "
                           f"reference's {d['shapes'][1]}")
                continue
            f = d["first"]
            click.echo(f"  {name} differs first at channel {f['channel']}, position "
                       f"({f['y']}, {f['x']}): engine {f['engine']}, reference "
                       f"{f['reference']} ({f['count']} position"
                       f"{' differs' if f['count'] == 1 else 's differ'})")
    v = summary["validated"]
    if v is not None:
        click.echo(f"engine {summary['engine']}: " + (
            "passes" if v["conforming"] else "does not pass") + " validate on the committed "
            f"corpus for {v['profile']} ({v['passed']} passed, {v['failed']} failed, "
            + "".join(f"{v[k]} {words}, " for k, words in (
                ("ran_elsewhere", "ran elsewhere"), ("crashed", "crashed"),
                ("timed_out", "timed out"), ("declined", "declined")) if v[k])
            + f"{v['not_for_engine']} not for this engine)")
    click.echo(f"written to {out}")


command = jpegai
