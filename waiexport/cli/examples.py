"""The ``examples`` commands: make the example sets, or run the main job on them."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from waiexport.jsonio import ascii_text, report_json

from .common import fail, folder, writable, written


@click.group("examples")
def examples():
    """Example sets: make them, or run the main job on them."""


@examples.command("make")
@click.argument("directory")
@click.option(
    "--full",
    is_flag=True,
    help="Realistic sizes (192→128→64→3 int_synth, 128-channel jpegai blocks), not the small ones.",
)
@click.option("--json", "as_json", is_flag=True, help="Print {written: [paths]} as JSON.")
def examples_make(directory, full, as_json):
    """Write example sets, deterministically: an int_synth.json (each layer's shift chosen
    from its activations on seeded latents, so its output spans most of 0..255), a jpegai
    bundle, the two boundary sets of §14.3, and tiny_synth.whg1.

    DIRECTORY is written whole, once every set is: a run that fails or is interrupted leaves
    it as it was (absent, or the earlier output). A DIRECTORY that holds anything but an
    earlier output of examples make is refused (not-empty), nothing touched.

    \b
    Exit status: 0 when written; 2 when DIRECTORY cannot be written or is not empty.
    Example: waiexport examples make /tmp/ex --full
    """
    from waiexport.capabilities.examples import make
    from waiexport.files import output_folder

    folder(str(Path(directory).parent))
    writable(directory, folder="examples make")
    if full:
        click.echo(
            "making the realistic sets (the activations that choose each layer's "
            "shift take about 15 s)...",
            err=True,
        )
    root = Path(directory)
    with written(directory):
        with output_folder(root, "examples make") as work:
            made = [str(root / p.relative_to(work)) for p in make(work, full)]
    click.echo(report_json({"written": made}) if as_json else "\n".join(made))


@examples.command("run")
@click.argument("directory", default=None, required=False)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {passed, steps: [lines]} as canonical JSON at the end.",
)
def examples_run(directory, as_json):
    """The main job on the example sets (default: the bundled examples/): lower → check →
    rewrite for ort-cpu → export → run on onnxruntime → bit-exact against the reference, then
    validate the committed corpus on the reference and on onnxruntime.

    \b
    Exit status: 0 when every check passes; 1 when one fails; 2 when DIRECTORY holds no
    int_synth.json.
    Example: waiexport examples run
    """
    from .main_job import main_job

    root = Path(directory) if directory else Path(__file__).resolve().parents[2] / "examples"
    if root.exists() and not root.is_dir():
        fail(
            str(root),
            "not-a-folder",
            "-",
            "a folder of example sets is expected (make one with 'waiexport examples make DIR')",
        )
    if not (root / "int_synth.json").exists():
        fail(
            str(root),
            "not-found",
            "int_synth.json",
            "no int_synth.json here; make one with 'waiexport examples make DIR'",
        )
    steps: list = []
    ok = main_job(root, steps.append if as_json else click.echo)
    if as_json:
        click.echo(report_json({"passed": ok, "steps": [ascii_text(line) for line in steps]}))
    sys.exit(0 if ok else 1)


command = examples
