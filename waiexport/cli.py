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
from .jsonio import BadInput, dumps, parse_decode, tensor_json
from .refusal import Refusal
from .whg1 import read

__all__ = ["main"]


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise click.BadParameter(f"cannot read {path}: {e.strerror}") from None


def _load(path: str, as_json: bool = False):
    """The bytes and graph of ``path``; a refusal prints one line (or ``{"refuse": code}``
    with ``as_json``) and exits 2."""
    data = _read(path)
    try:
        return data, read(data)
    except Refusal as r:
        click.echo(dumps({"refuse": r.code}) if as_json else f"{path}: {r}", err=not as_json)
        sys.exit(2)


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


@main.command()
@click.argument("graph", type=click.Path(dir_okay=False))
@click.option("--decode", "decode_file", required=True, type=click.Path(dir_okay=False),
              help="A §14.1 decode object, or a JSON array of them for a sequence.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"outputs": [...]} or {"refuse": code} per decode, canonical JSON.')
@click.option("--literal", is_flag=True,
              help="Run the literal implementation (scalar loops; slow, small inputs).")
def run(graph, decode_file, as_json, literal):
    """Run decodes through GRAPH on the exact reference.

    DECODE.json holds one decode, {"inputs": [{"data": [...], "shape": [C, H, W]}, ...],
    "scalars": [...]}, with the data inputs only in input-table order and integers as decimal
    strings or JSON numbers (an "expect" member is ignored), or a JSON array of decodes: a
    sequence, whose state inputs start at their init and carry from each completed decode
    (§10.3). A refused decode changes no state and the sequence goes on.

    Exit status: 0 when every decode completes, 1 when a decode is refused, 2 when the graph
    is refused at load or the input is malformed.
    """
    from .reference import Decoder, decode

    _, g = _load(graph, as_json)
    try:
        doc = json.loads(_read(decode_file))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise click.BadParameter(f"{decode_file}: not JSON: {e}") from None
    decodes = doc if isinstance(doc, list) else [doc]
    n_data = sum(1 for i in g.inputs if i.kind == "data")
    try:
        parsed = [parse_decode(d, n_data, len(g.scalars), f"decode {k}")
                  for k, d in enumerate(decodes)]
    except BadInput as e:
        raise click.BadParameter(f"{decode_file}: {e}") from None
    seq = Decoder(g, engine=lambda gr, i, s: decode(gr, i, s, literal=literal))
    results = []
    for inputs, scalars in parsed:
        try:
            results.append({"outputs": seq.step(inputs, scalars)})
        except Refusal as r:
            results.append({"refuse": r.code, "why": str(r)})
    if as_json:
        out = [{"outputs": [tensor_json(o) for o in r["outputs"]]} if "outputs" in r
               else {"refuse": r["refuse"]} for r in results]
        click.echo(dumps(out if isinstance(doc, list) else out[0]))
    else:
        for k, r in enumerate(results):
            if "refuse" in r:
                click.echo(f"decode {k}: refused, {r['why']}")
                continue
            parts = [f"out{j} {list(o.shape)} in [{o.min()}, {o.max()}]" if o.size
                     else f"out{j} {list(o.shape)}" for j, o in enumerate(r["outputs"])]
            click.echo(f"decode {k}: " + "; ".join(parts))
    sys.exit(1 if any("refuse" in r for r in results) else 0)
