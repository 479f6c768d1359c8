"""The ``inspect`` command: a WHG1 graph as a person or a program reads it."""

from __future__ import annotations


import click

from waiexport.jsonio import report_json

from .common import load_file


@click.command("inspect")
@click.argument("file")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the description as canonical JSON: {bytes, inputs, max_elems, "
    "operators, outputs, scalars, sha256, tensors}.",
)
def inspect(file, as_json):
    """Show a WHG1 graph: header, inputs, scalars, tensors with policy and range, operators
    with their parameters summarised, and every tensor's planned shape (in the inputs' sides
    H and W when they declare none: [3, 8H, 8W]).

    \b
    The file is loaded with the checks of §10.5 steps 1–7.
    Exit status: 0 when it loads; 2 when it is refused or cannot be read.
    Example: waiexport inspect examples/tiny_synth.whg1
    """
    from .describe import describe, render_text

    data, graph = load_file(file)
    d = describe(graph, data)
    click.echo(report_json(d) if as_json else render_text(d, file))


command = inspect
