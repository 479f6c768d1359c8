"""The ``jpegai`` commands: the ``wai.image.jpegai`` entropy path (§13.6.1)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from waiexport.refusal import Refusal

from .common import engine_named, engine_option, fail, progress, read_file, writable, write_folder


@click.group("jpegai")
def jpegai():
    """The wai.image.jpegai entropy path (section 13.6.1)."""


@jpegai.command("decode")
@click.argument("bundle")
@click.option(
    "--soz",
    required=True,
    help="The SOZ segment's payload (both planes' hyper-latents, luma first).",
)
@click.option("--sorp", required=True, help="The SORP segment's payload (the luma latent).")
@click.option("--sors", required=True, help="The SORS segment's payload (the chroma latent).")
@click.option(
    "--grfs-y",
    "grfs_y",
    required=True,
    help="The luma GRFS flags: 160 '0'/'1' characters, or a JSON array.",
)
@click.option(
    "--grfs-uv",
    "grfs_uv",
    required=True,
    help="The chroma GRFS flags: 96 '0'/'1' characters, or a JSON array.",
)
@engine_option("The engine that runs the scale graphs.")
@click.option(
    "--compare",
    is_flag=True,
    help="Run the scale graphs on the reference too and report, per plane, whether "
    "v, the mask, likely, sigma_idx and y_q agree, and where they first differ.",
)
@click.option(
    "--no-validate",
    "no_validate",
    is_flag=True,
    help="Do not validate the engine on the committed corpus for the summary.",
)
@click.option(
    "-o", "--output", required=True, help="The folder for the .npy files and summary.json."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print summary.json (canonical JSON): {compare, engine, planes, validated}.",
)
def jpegai_decode(
    bundle, soz, sorp, sors, grfs_y, grfs_uv, engine_name, compare, no_validate, output, as_json
):
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
    import contextlib

    from waiexport.jobs.jpegai import (
        FLAGS_LIMIT,
        PAYLOAD_LIMIT,
        AtScale,
        InputRefused,
        jpegai_decode as decoded,
    )
    from waiexport.targets.errors import DoesNotFit, NotForEngine

    src = Path(bundle)
    if not src.is_dir():
        fail(
            bundle,
            "not-found" if not src.exists() else "not-a-folder",
            "-",
            "a wai.image.jpegai bundle is a folder holding norm.json and weights/",
        )
    paths = {
        "bundle": bundle,
        "SOZ": soz,
        "SORP": sorp,
        "SORS": sors,
        "grfs_y": grfs_y,
        "grfs_uv": grfs_uv,
    }
    given = {k: read_file(paths[k], PAYLOAD_LIMIT) for k in ("SOZ", "SORP", "SORS")} | {
        k: read_file(paths[k], FLAGS_LIMIT) for k in ("grfs_y", "grfs_uv")
    }
    eng = engine_named(engine_name)
    writable(output, folder="jpegai decode")
    try:
        with contextlib.ExitStack() as stack:
            done = decoded(
                src,
                *given.values(),
                engine=eng,
                compare=compare,
                validate=not no_validate,
                progress=lambda label, n: stack.enter_context(progress(n, label)).update,
            )
    except InputRefused as e:
        fail(paths[e.which], e.refusal.code, e.where, e.refusal.detail)
    except AtScale as e:
        if isinstance(e.error, Refusal):
            fail(f"--engine {e.engine}", e.error.code, e.role, e.error.detail)
        fail(
            f"--engine {e.engine}",
            "does-not-fit" if isinstance(e.error, (DoesNotFit, NotForEngine)) else "engine-failure",
            e.role,
            str(e.error),
        )
    write_folder(output, done.files, "jpegai decode")
    if as_json:
        click.echo(done.to_json())
    else:
        _say_decode(done.summary, Path(output))
    sys.exit(0 if done.ok else 1)


def _say_decode(summary: dict, out: Path) -> None:
    """The decode's summary in lines."""
    for plane, values in summary["planes"].items():
        parts = [
            f"{name} {v['shape']} {v['sha256'][:16]}"
            for name, v in values.items()
            if name != "refused"
        ]
        click.echo(f"plane {plane}: " + ", ".join(parts))
        if "refused" in values:
            click.echo(
                f"plane {plane}: latent refused: {values['refused']['code']} at "
                f"position {values['refused']['at']}"
            )
    for plane, c in (summary["compare"] or {}).items():
        same = [n for n, d in c.items() if d["agree"]]
        click.echo(
            f"plane {plane} against the reference: "
            + (f"{', '.join(same)} agree" if same else "nothing agrees")
        )
        for name, d in c.items():
            if d["agree"]:
                continue
            if "refused_on" in d:
                click.echo(
                    f"  {name}: the latent decode is refused on the {d['refused_on']} "
                    f"side ({d['code']} at position {d['at']})"
                )
                continue
            if "shapes" in d:
                click.echo(
                    f"  {name}: the engine's has shape {d['shapes'][0]}, the "
                    f"reference's {d['shapes'][1]}"
                )
                continue
            f = d["first"]
            click.echo(
                f"  {name} differs first at channel {f['channel']}, position "
                f"({f['y']}, {f['x']}): engine {f['engine']}, reference "
                f"{f['reference']} ({f['count']} position"
                f"{' differs' if f['count'] == 1 else 's differ'})"
            )
    v = summary["validated"]
    if v is not None:
        click.echo(
            f"engine {summary['engine']}: "
            + ("passes" if v["conforming"] else "does not pass")
            + " validate on the committed "
            f"corpus for {v['profile']} ({v['passed']} passed, {v['failed']} failed, "
            + "".join(
                f"{v[k]} {words}, "
                for k, words in (
                    ("ran_elsewhere", "ran elsewhere"),
                    ("crashed", "crashed"),
                    ("timed_out", "timed out"),
                    ("declined", "declined"),
                )
                if v[k]
            )
            + f"{v['not_for_engine']} not for this engine)"
        )
    click.echo(f"written to {out}")


command = jpegai
