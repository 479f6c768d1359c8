"""The ``waiexport`` command line.

click is used for the commands: it gives help text, option parsing, exit code 2 on usage
errors and a test runner, which argparse would make us write by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__
from .describe import describe, render_text
from .refusal import Refusal
from .whg1 import read

__all__ = ["main"]


def _refuse(path: str, r: Refusal) -> None:
    click.echo(f"{path}: {r}", err=True)
    sys.exit(2)


def _load(path: str):
    """The bytes and graph of ``path``; a refusal prints one line and exits 2."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise click.BadParameter(f"cannot read {path}: {e.strerror}") from None
    try:
        return data, read(data)
    except Refusal as r:
        _refuse(path, r)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="waiexport")
def main():
    """Check, export and validate exact-integer networks (wai-ops/1).

    Every refusal prints its spec code (model_mismatch, too_large, field_range,
    geometry_mismatch, ...) with where and why on one line, and exits 2.
    """


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON description instead.")
def inspect(file, as_json):
    """Show a WHG1 graph: header, inputs, scalars, tensors with policy and range, operators
    with their parameters summarised, and the planned shapes when the inputs declare sizes.

    The file is loaded with the checks of §10.5 steps 1–7; a refused file prints its code and
    reason and exits 2.
    """
    data, graph = _load(file)
    d = describe(graph, data)
    if as_json:
        click.echo(json.dumps(d, indent=1))
    else:
        click.echo(render_text(d, file))
