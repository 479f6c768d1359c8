"""The ``fuzz`` command: random graphs against an engine, each difference reduced and kept as
a bug bundle; shards' bundles merged."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from waiexport.jsonio import BadInput

from .common import engine_named, engine_option, fail, fail_bad_input, writable, write_folder


class _Shard(click.ParamType):
    """``K/N``: shard K of N, 1 <= K <= N."""

    name = "K/N"

    def convert(self, value, param, ctx):
        m = re.fullmatch(r"(\d{1,6})/(\d{1,6})", str(value))
        if not m or not 1 <= int(m[1]) <= int(m[2]):
            self.fail(f"{value!r} is not K/N with 1 <= K <= N", param, ctx)
        return int(m[1]), int(m[2])


@click.command("fuzz")
@engine_option("The engine to fuzz.")
@click.option(
    "--target",
    "target_name",
    default=None,
    help="The target whose models the engine runs (its own by default).",
)
@click.option("--graphs", type=click.IntRange(1, 10**9), default=None, help="Graph indices to run.")
@click.option(
    "--minutes", type=click.FloatRange(0.01, 7 * 24 * 60), default=None, help="Run this long."
)
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option(
    "--jobs", type=click.IntRange(1, 256), default=1, show_default=True, help="Local processes."
)
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Where the --jobs run: this machine's processes, or a Ray cluster's workers "
    "(Ray's drop-in Pool; the extra ray): the cluster RAY_ADDRESS names, else a local one.",
)
@click.option(
    "--shard",
    type=_Shard(),
    default="1/1",
    show_default=True,
    help="Run shard K of N: graph indices congruent to K-1 mod N, so N machines or CI jobs "
    "cover one campaign and their bundles merge (--merge).",
)
@click.option(
    "--merge",
    "merge_from",
    multiple=True,
    metavar="BUGS/",
    help="Merge these fuzz outputs (shards of one campaign) into -o instead of running; "
    "repeat it for each.",
)
@click.option(
    "-o",
    "--output",
    default=None,
    metavar="BUGS/",
    help="The folder for summary.json and a bundle per bug (written whole; an earlier "
    "fuzz output there is replaced).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print summary.json's object as canonical JSON."
)
def fuzz(
    engine_name,
    target_name,
    graphs,
    minutes,
    seed,
    jobs,
    executor,
    shard,
    merge_from,
    output,
    as_json,
):
    """Generate random valid graphs (requantisations at their ties, one operator at a time,
    chains where runtimes fuse neighbours, with policies and clamps at the int32 ends and
    past 2^24, scalars and state), decode each at its probe inputs on the reference and on
    the engine, and classify each: agree, declined, unclaimed (the engine's own probes
    disown its model: no bug), wrong value, refusal mismatch, crash, timeout. Each
    difference is reduced (the operator that differs, alone, on smaller sides) and kept
    once per signature (engine, operator, class, diagnosis) as a bundle in BUGS/:
    graph.whg1, vector.jsonl (the decode and the exact outputs), outcome.json (what came),
    machine.json (the engine's packages, the CPU), and repro.sh, one command that exits 1
    while the bug shows. Deterministic from --seed: graph k is the same in every run.

    \b
    Exit status: 0 when no difference was found (or merged); 1 when one was; 2 for an
    unknown or unavailable engine, neither or both of --graphs and --minutes, a fuzz output
    that cannot be read for --merge, or BUGS/ that cannot be written.
    Example: waiexport fuzz --engine ort-cpu --graphs 30 --seed 1 -o /tmp/bugs
    """
    from waiexport.jobs.fuzzing import fuzz as fuzzed
    from waiexport.jobs.fuzzing import merge
    from waiexport.targets.errors import EngineUnavailable

    if output is not None:
        writable(output, folder="fuzz")
    if merge_from:
        if output is None:
            fail("--merge", "usage", "-", "give -o BUGS/ for the merged bundles")
        try:
            done = merge([Path(p) for p in merge_from])
        except BadInput as e:
            fail_bad_input(merge_from[0], "bad-fuzz-output", e)
    else:
        if (graphs is None) == (minutes is None):
            fail("--graphs, --minutes", "usage", "-", "give one of them")
        here = jobs == 1 and executor == "local"
        engine = engine_named(engine_name, target=target_name)  # unknown: one line, first
        try:
            done = fuzzed(
                engine if here else engine_name,
                target=target_name,
                graphs=graphs,
                minutes=minutes,
                seed=seed,
                shard=shard,
                jobs=jobs,
                executor=executor,
                progress=_progress if sys.stderr.isatty() else None,
            )
        except EngineUnavailable as e:
            fail("--executor", "unavailable", "-", str(e))
        if sys.stderr.isatty():
            click.echo(file=sys.stderr)
    if output is not None:
        write_folder(output, done.files(), "fuzz")
    click.echo(done.to_json() if as_json else done.text())
    sys.exit(0 if done.ok or merge_from else 1)


def _progress(n: int, seconds: float) -> None:
    click.echo(f"\rfuzz: {n} graphs, {n / max(seconds, 1e-9):.1f} a second", nl=False, err=True)


command = fuzz
