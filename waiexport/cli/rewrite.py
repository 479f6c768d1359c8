"""The ``rewrite`` command: the exact rewrites a target needs (§9.3, §9.4)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import fail, load_file, target_named, write_file


@click.command("rewrite")
@click.argument("source")
@click.option(
    "--target",
    "target_name",
    default="ort-cpu",
    show_default=True,
    help="A target (waiexport targets list).",
)
@click.option("-o", "--output", required=True, help="Where to write the rewritten WHG1 graph.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {after, before, changes, fits, mapped_at_export, output_sha256, "
    "reasons, target} as canonical JSON (section 8.5).",
)
def rewrite(source, target_name, output, as_json):
    """Rewrite SOURCE for a target with the exact rewrites of §9.3 and §9.4.

    In a fixed order: transposed convolutions to phase convolutions where the output is the
    stride times the input; then for each requantisation, post bias to pre bias, negative
    multiplier to positive, shift rescaling, floor to half_up — each only where the target
    needs it, its precondition holds, and an acc32 graph stays acc32. Prints what changed node
    by node, and each node of the result that still breaks a limit of the target, in words.
    OUTPUT is written whenever SOURCE loads: every rewrite applied is exact. Nodes are named
    by their index in SOURCE, with the rewritten graph's beside it where it differs; the
    mappings export applies (a depth-to-space order, replicate padding, digit splitting) are
    listed, and "fits" is the answer export, check --target and validate give.

    \b
    Exit status: 0 when the graph fits the target; 1 when it does not; 2 when SOURCE is
    refused at load or a path cannot be read or written.
    Example: waiexport rewrite examples/tiny_synth.whg1 --target tosa -o /tmp/tiny.tosa.whg1
    """
    from waiexport.jobs.rewriting import rewrite as rewritten
    from waiexport.load import load
    from waiexport.targets.errors import EngineUnavailable

    tgt = target_named(target_name)
    _, member = load_file(source, as_json, lambda d: load(d, name=Path(source).stem))
    try:
        done = rewritten(member, target=tgt.name)
    except EngineUnavailable as e:
        fail(source, "unavailable", tgt.name, str(e))
    write_file(output, done.data)
    click.echo(
        done.to_json()
        if as_json
        else "\n".join([f"{source} → {output} for {tgt.name}", *done.lines()])
    )
    sys.exit(0 if done.fit.fits else 1)


command = rewrite
