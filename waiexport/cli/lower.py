"""The ``lower`` command: a set in a registered form to canonical WHG1 graphs (§13)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from waiexport.refusal import Refusal

from .common import fail, folder, read_file, writable, write_folder


@click.command("lower")
@click.argument("form", type=click.Choice(["int_synth", "jpegai"]))
@click.argument("source")
@click.option(
    "-o", "--output", required=True, help="The folder for <role>.whg1 and certificate.json."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print {verdict, written: [paths]} as canonical JSON."
)
def lower(form, source, output, as_json):
    """Lower a set in a registered form to canonical WHG1 graphs (§13).

    SOURCE is an int_synth.json file (int_synth/1, §13.1), or a wai.image.jpegai bundle
    folder holding norm.json and weights/ (jpegai-int/1, §13.6.1). Writes OUTPUT/<role>.whg1
    for each graph (synth; hs_y, hs_uv) and OUTPUT/certificate.json, the set's certificate
    with its lowering and capability.

    \b
    Exit status: 0 when lowered; 2 when the set is refused (payload_malformed for int_synth,
    model_mismatch for jpegai), a path cannot be read or written, or OUTPUT holds what no
    earlier lower wrote there (not-empty: OUTPUT is replaced whole, so nothing else is lost).
    Example: waiexport lower int_synth examples/int_synth.json -o /tmp/synth
    """
    from waiexport.jobs.lowering import lower as lowered

    src = Path(source)
    folder(str(Path(output).parent))
    writable(output, folder="lower")
    if form == "int_synth":
        read_file(source)
    elif not src.is_dir():
        fail(
            source,
            "not-found" if not src.exists() else "not-a-folder",
            "-",
            "a wai.image.jpegai bundle is a folder holding norm.json and weights/",
        )
    try:
        done = lowered(form, src)
    except Refusal as r:
        fail(source, r.code, r.where, r.detail)
    except OSError as e:
        fail(source, "unreadable", "-", e.strerror or str(e))
    write_folder(output, done.files, "lower")
    done = replace(done, written=tuple(str(Path(output) / name) for name in done.files))
    click.echo(done.to_json() if as_json else "\n".join(done.written))


command = lower
