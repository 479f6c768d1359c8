"""The ``validate`` command, the third job: an engine against the vectors, or a pack's results."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from waiexport.jsonio import BadInput, report_json

from .common import engine_named, engine_option, fail, fail_bad_input, progress


class _Limit(click.FloatRange):
    """A worker's limit, from 0.1 to a sane most (a week of seconds, a pebibyte of memory):
    NaN passes every comparison and would keep no limit, infinity is no size of memory, and
    1e300 GiB is no number of bytes (it ended in OverflowError's traceback)."""

    def convert(self, value, param, ctx):
        import math

        limit = super().convert(value, param, ctx)
        if not math.isfinite(limit):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return limit


@click.command("validate")
@click.argument("paths", nargs=-1)
@engine_option("The engine to validate.")
@click.option(
    "--target",
    "target_name",
    default=None,
    help="The target whose models the engine runs (waiexport targets list), in place "
    "of its own: the ort-cpu model on another runtime, say. The claim names both.",
)
@click.option(
    "--time-limit",
    type=_Limit(min=0.1, max=7 * 86400.0),
    default=300.0,
    show_default=True,
    help="Seconds one decode may take on an engine that runs in a worker process "
    "(tosa-ref, iree-cpu, the third-party runtimes, plug-ins); past it the vector "
    "is 'timed out' and the report goes on.",
)
@click.option(
    "--memory-limit",
    type=_Limit(min=0.1, max=float(1 << 20)),
    default=8.0,
    show_default=True,
    help="GiB of resident memory such a worker, with the processes its runtime "
    "starts, may use; past it the vector is 'crashed'.",
)
@click.option(
    "--allow-fallback",
    is_flag=True,
    help="Let an ort:<Provider> engine place the nodes its provider declines on "
    "onnxruntime's CPU provider; each vector then says where its nodes ran, and "
    "one that ran partly elsewhere is never counted as a pass.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the report as canonical JSON (section 8.5): {claim, engine, files, "
    "totals, vectors}; see docs/conformance.md for its schema.",
)
@click.option(
    "--locate",
    is_flag=True,
    help="For a differing output, ask the engine for every intermediate tensor and "
    "name the first operator that differs, the first node inside its lowering "
    "that differs from onnx's reference evaluator, and a diagnosis.",
)
@click.option(
    "--results",
    "results",
    default=None,
    help="Judge the outputs a runner elsewhere wrote for a pack (waiexport vectors "
    "pack) instead of running an engine: RESULTS holds outputs/ and "
    "results.json.",
)
@click.option(
    "--pack",
    "pack",
    default=None,
    help="With --results: your own copy of the pack the results are for (the "
    "folder vectors pack wrote). Default: RESULTS itself, which then needs "
    "--pack-sha256.",
)
@click.option(
    "--pack-sha256",
    "pack_sha256",
    default=None,
    help="With --results: the pack's identity, as vectors pack printed it; the "
    "manifest judged must have it.",
)
@click.option(
    "--junit-xml",
    "junit",
    default=None,
    metavar="FILE",
    help="Also write the report as JUnit XML to FILE, for a CI system: a suite per vector "
    "file, a case per vector; failed, crashed, timed out and ran elsewhere as failures "
    "with the first difference, declined and not for this engine as skipped.",
)
@click.option(
    "--baseline",
    "baseline",
    default=None,
    metavar="KNOWN.json",
    help="The engine's known failures and declines (written by --write-baseline): exit 0 "
    "while nothing new fails or is declined, 1 naming each new one.",
)
@click.option(
    "--write-baseline",
    "write_baseline",
    default=None,
    metavar="FILE",
    help="Write this run's failures and declines to FILE, a baseline for --baseline.",
)
def validate(
    paths,
    engine_name,
    target_name,
    time_limit,
    memory_limit,
    allow_fallback,
    as_json,
    locate,
    results,
    pack,
    pack_sha256,
    junit,
    baseline,
    write_baseline,
):
    """Run conformance vectors on an engine, bit for bit, refusals included.

    PATHS are .jsonl files or folders of them (default: the committed corpus). Every vector
    whose profiles include the engine's profile and whose graph lies in the engine's subset
    runs; the rest are counted, by reason, as not for this engine. A failing output is
    reported by its first differing index, how many elements differ, the largest difference
    and a histogram of the differences. The claim, naming the engine's packages and versions,
    is printed only when nothing failed or ran elsewhere.

    \b
    Exit status: 0 when every applicable vector passes (with --baseline: when nothing fails
    or is declined that the baseline does not hold); 1 when one fails or ran elsewhere (with
    --baseline: each new one named); 2 when the engine is unknown or unavailable, a vector
    file or the baseline cannot be read or is malformed, an output file cannot be written,
    or there is nothing to validate.
    Example: waiexport validate --engine ort-cpu --junit-xml report.xml
    """
    from waiexport.conformance.generate import CORPUS
    from waiexport.conformance.validate import files_under
    from waiexport.jobs.validation import NothingToValidate, vectors
    from waiexport.jobs.validation import validate as validated

    _conflicts(results is not None)
    outputs = _Outputs(junit, baseline, write_baseline)
    if results is not None:
        _judge_results(
            Path(results),
            Path(pack or results),
            pack_sha256,
            files_under([Path(p) for p in paths] or [CORPUS]),
            as_json,
            outputs,
        )
    eng = engine_named(
        engine_name,
        allow_fallback,
        target_name,
        time_limit=time_limit,
        memory_limit=int(memory_limit * 2**30),
    )
    where = " ".join(paths) or str(CORPUS)
    gap = eng.describe().get("version_gap")
    if gap:
        click.echo(f"note: {gap}", err=True)
    try:
        read = vectors(paths)
    except FileNotFoundError as e:
        fail(e.filename, "not-found", "-", e.strerror)
    except BadInput as e:
        fail_bad_input(where, "bad-vector", e)
    except NothingToValidate as e:
        fail(where, "nothing-to-validate", "-", str(e))
    with progress(sum(len(v) for _, v in read), f"validating {eng.name}") as bar:
        done = validated(read, engine=eng, locate=locate, progress=bar.update)
    click.echo(done.to_json() if as_json else done.text())
    if not done.ran:
        fail(
            where,
            "nothing-ran",
            f"--engine {eng.name}",
            f"none of the {len(done.outcomes)} vectors ran on this engine (not for it, or "
            "declined): nothing was validated",
        )
    sys.exit(outputs.written(done.report, done.ok))


#: What only runs an engine, and what only judges a runner's results.
_RUNNING = ("engine_name", "target_name", "time_limit", "memory_limit", "allow_fallback", "locate")
_JUDGING = ("pack", "pack_sha256")


def _conflicts(judging: bool) -> None:
    """End in one line where an option given has no effect in this mode: the options that
    run an engine with ``--results``, or ``--pack`` and ``--pack-sha256`` without it."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    given = [
        p
        for p in ctx.command.params
        if p.name in (_RUNNING if judging else _JUDGING)
        and ctx.get_parameter_source(p.name) is not ParameterSource.DEFAULT
    ]
    if given:
        names = ", ".join(p.opts[-1] if p.opts[-1].startswith("--") else p.opts[0] for p in given)
        fail(
            names,
            "usage",
            "-",
            "options for running an engine; --results judges what a runner wrote instead"
            if judging
            else "only with --results (judging a runner's results)",
        )


def _judge_results(
    results: Path, pack: Path, pack_sha256: str | None, files: list, as_json: bool, outputs
) -> None:
    """``validate --results``: the report of a pack's results, judged against the vector
    files ``files``; exits."""
    import re

    from waiexport.conformance.judging import judge
    from waiexport.conformance.validate import NO_CLAIM, render, report

    for folder, what in ((results, "results"), (pack, "pack")):
        if not folder.is_dir():
            fail(str(folder), "not-a-folder", "-", f"a folder of {what} is expected")
    if pack_sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", pack_sha256):
        fail(
            "--pack-sha256",
            "usage",
            "-",
            "64 lowercase hexadecimal digits, as vectors pack printed them",
        )
    if pack.resolve() == results.resolve() and pack_sha256 is None:
        fail(
            str(results),
            "usage",
            "--pack",
            "the results folder's own manifest cannot vouch "
            "for itself: give --pack with the pack you made, or --pack-sha256 with the "
            "identity vectors pack printed",
        )
    try:
        outcomes, eng, problems = judge(pack, results, files, pack_sha256)
    except BadInput as e:
        fail_bad_input(str(results), "bad-results", e)
    for line in problems:
        click.echo(line, err=True)
    rep = report(eng, outcomes)
    if problems:
        rep["claim"] = None
    rep["result_problems"] = problems
    click.echo(report_json(rep) if as_json else render(rep))
    ok = not problems and not any(o.status in NO_CLAIM for o in outcomes)
    sys.exit(outputs.written(rep, ok))


class _Outputs:
    """What validate writes beside its report (JUnit XML, a baseline) and the baseline it
    judges against: read and checked before any vector runs, so a bad one costs nothing."""

    def __init__(self, junit: str | None, baseline: str | None, write_baseline: str | None):
        from waiexport.conformance.reports import read_baseline
        from waiexport.jsonio import loads

        from .common import read_file, writable

        for path in (junit, write_baseline):
            if path is not None:
                writable(path)
        self.junit, self.write_baseline, self.known = junit, write_baseline, None
        if baseline is not None:
            try:
                self.known = read_baseline(loads(read_file(baseline, 64 << 20)), baseline)
            except BadInput as e:
                fail_bad_input(baseline, "bad-baseline", e)

    def written(self, rep: dict, ok: bool) -> int:
        """Write the files asked for from the report ``rep``; the exit status: ``ok``'s, or
        with a baseline, 1 exactly when the report adds to it (each new one named)."""
        from waiexport.conformance.reports import against, baseline_of, junit_xml
        from waiexport.jsonio import dumps

        from .common import write_file

        if self.junit is not None:
            write_file(self.junit, junit_xml(rep))
        if self.write_baseline is not None:
            write_file(self.write_baseline, (dumps(baseline_of(rep)) + "\n").encode())
        if self.known is None:
            return 0 if ok else 1
        new, passing = against(rep, self.known)
        for line in passing:
            click.echo(f"baseline: {line}", err=True)
        for line in new:
            click.echo(f"baseline: {line}", err=True)
        click.echo(
            f"baseline: {len(new)} new against {len(self.known)} known" + ("" if new else ", ok"),
            err=True,
        )
        return 1 if new else 0


command = validate
