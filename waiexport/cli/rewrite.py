"""The ``rewrite`` command: the exact rewrites a target needs (§9.3, §9.4)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from waiexport.jsonio import ascii_text, report_json

from .common import write_file, load_file, target_named, fit_target


@click.command("rewrite")
@click.argument("source")
@click.option("--target", "target_name", default="ort-cpu", show_default=True,
              help="A target (waiexport targets list).")
@click.option("-o", "--output", required=True,
              help="Where to write the rewritten WHG1 graph.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {after, before, changes, fits, mapped_at_export, output_sha256, "
                   "reasons, target} as canonical JSON (section 8.5).")
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
    from waiexport.load import load
    from waiexport.rewrites.manager import rewrite_for

    tgt = target_named(target_name)
    _, member = load_file(source, as_json, load)
    outcome = rewrite_for(member, tgt, Path(source).stem)
    write_file(output, outcome.data)
    verdict = fit_target(source, member, tgt, outcome)
    at_export = [(i, op, lim) for i, op, lims in outcome.remaining for lim in lims
                 if lim.mapped]
    if as_json:
        click.echo(report_json({
            "after": outcome.after["verdict"], "before": outcome.before["verdict"],
            "changes": [c.as_json() for c in outcome.changes],
            "fits": verdict.fits, "reasons": [ascii_text(r) for r in verdict.reasons],
            "mapped_at_export": [{"mapping": ascii_text(lim.words), "node": outcome.sources[i],
                                  "now": i, "op": op} for i, op, lim in at_export],
            "output_sha256": outcome.after["graphs"][0]["graph_sha256"],
            "target": tgt.name}))
    else:
        click.echo(f"{source} → {output} for {tgt.name}")
        for c in outcome.changes:
            what = "applied" if c.applied else f"not applied: {c.reason}"
            click.echo(f"  {outcome.changed(c)} {c.op}: {c.rewrite}: {what}")
        if not outcome.changes:
            click.echo("  nothing to rewrite")
        for i, op, lim in at_export:
            click.echo(f"  {outcome.label(i)} {op}: at export: {lim}")
        for reason in verdict.reasons:
            click.echo(f"  {reason if reason.startswith('does not fit') else 'does not fit: ' + reason}")
        yes = {True: "yes", False: "no"}
        b, a = outcome.before["verdict"], outcome.after["verdict"]
        click.echo(f"acc32 before {yes[b['acc32']]}, after {yes[a['acc32']]}; "
                   f"{'fits' if verdict.fits else 'does not fit'} {tgt.name}")
    sys.exit(0 if verdict.fits else 1)


command = rewrite
