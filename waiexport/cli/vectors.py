"""The ``vectors`` commands: generate the corpus, check it independently, pack it for a runner
elsewhere."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from waiexport.jsonio import BadInput, ascii_text, report_json

from .common import fail, fail_bad_input, folder, progress, target_named, writable


@click.group("vectors")
def vectors():
    """Conformance vectors (§14.1, §14.2): generate the corpus, check it independently."""


@vectors.command("generate")
@click.argument("outdir")
@click.option("--json", "as_json", is_flag=True, help="Print {written: [paths]} as JSON.")
def vectors_generate(outdir, as_json):
    """Write every case as vectors under OUTDIR (vectors/<operator>.jsonl,
    graphs/<name>.jsonl), deterministically, expectations from the reference.

    \b
    Exit status: 0 when written; 2 when OUTDIR cannot be written.
    Example: waiexport vectors generate /tmp/corpus
    """
    from waiexport.conformance.generate import generate

    written = [str(p) for p in generate(folder(outdir))]
    click.echo(report_json({"written": written}) if as_json else "\n".join(written))


@vectors.command("check")
@click.argument("directory")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {files: [{difference, path, same}], skipped: [paths]} as JSON.",
)
def vectors_check(directory, as_json):
    """Recompute every vector under DIRECTORY with the literal evaluator and the
    term-by-term bounds fold (a stage vector's expect with the literal stage operators),
    write each file again and compare bytes; files under certificates/ are skipped with a
    note.

    \b
    Exit status: 0 when every file is reproduced; 1 when one differs; 2 when DIRECTORY is
    not a folder or holds a line that is not a vector.
    Example: waiexport vectors check conformance/corpus
    """
    from waiexport.conformance.checker import check_dir
    from waiexport.jsonio import BadInput

    if not Path(directory).is_dir():
        fail(directory, "not-a-folder", "-", "a folder of vector files is expected")
    files = sorted(Path(directory).rglob("*.jsonl"))
    try:
        with progress(len(files), "checking") as bar:
            checks, skipped = check_dir(Path(directory), progress=bar.update)
    except BadInput as e:
        fail_bad_input(directory, "bad-vector", e)
    if as_json:
        click.echo(
            report_json(
                {
                    "files": [
                        {
                            "difference": ascii_text(c.first_difference or ""),
                            "path": str(c.path),
                            "same": c.same,
                        }
                        for c in checks
                    ],
                    "skipped": [str(p) for p in skipped],
                }
            )
        )
        sys.exit(0 if all(c.same for c in checks) else 1)
    for path in skipped:
        click.echo(f"skipped {path}: certificate vectors are not checked yet")
    for c in checks:
        click.echo(
            f"{'same' if c.same else 'DIFFERS'} {c.path}"
            + (f": {c.first_difference}" if c.first_difference else "")
        )
    differ = sum(not c.same for c in checks)
    click.echo(
        f"{len(checks)} files checked: {len(checks) - differ} reproduced, {differ} "
        f"differ; {len(skipped)} skipped"
    )
    sys.exit(0 if not differ else 1)


@vectors.command("pack")
@click.option(
    "--target",
    "target_name",
    default="ort-cpu",
    show_default=True,
    help="The target whose models the pack holds (waiexport targets list).",
)
@click.argument("directory")
@click.argument("paths", nargs=-1)
@click.option(
    "--json", "as_json", is_flag=True, help="Print {not_packed, packed, target} as canonical JSON."
)
def vectors_pack(target_name, directory, paths, as_json):
    """Write a pack of the vectors in PATHS (default: the committed corpus) that the target
    takes, for a runner this process cannot drive (a board, an FVP, a vendor runtime): each
    vector's model exported for the target, each decode's inputs only as .npy in the model's
    layout, the refusals the host must make, and DIRECTORY/manifest.json with every digest.
    The expected outputs are not in the pack. The runner, in a copy of DIRECTORY, runs each
    decode's model on its inputs (in the listed order; a state input from the named output of
    the named decode), writes each output to the path the manifest gives
    (outputs/<key>/<decode>/<name>.npy), an error where a decode cannot run
    (errors/<key>/<decode>.txt), and results.json ({"pack": IDENTITY, "path":
    "RUNTIME:KERNELS", "ran_on": "..."}); 'waiexport validate --results COPY --pack
    DIRECTORY' judges them, and refuses a QDQ or TFLite pack run on a float32 path. The
    reference runner is waiexport/runner.py, one file to copy to the device.

    \b
    Exit status: 0 when written (an earlier pack in DIRECTORY, as vectors pack wrote it,
    replaced whole); 2 for an unknown target, an unreadable vector file, an unwritable
    DIRECTORY or one holding anything else (not-empty: a runner's results among them).
    Example: waiexport vectors pack --target ethos-u55-128 /tmp/pack
    conformance/corpus/vectors/relu.jsonl
    """
    from waiexport.conformance.generate import CORPUS
    from waiexport.conformance.packs import COMMAND, make_pack
    from waiexport.conformance.validate import files_under, read_all
    from waiexport.files import NotOurs
    from waiexport.targets.errors import CompileError, EngineUnavailable
    from waiexport.targets.format import format_of

    tgt = target_named(target_name)
    try:
        format_of(tgt).require()
    except EngineUnavailable as e:
        fail(f"--target {tgt.name}", "unavailable", "-", str(e))
    out = Path(directory)
    folder(str(out.parent) if str(out.parent) else ".")
    writable(directory, folder=COMMAND)
    files = files_under([Path(p) for p in paths] or [CORPUS])
    try:
        total = sum(len(vectors) for _, vectors in read_all(files))
        with progress(total, f"packing for {tgt.name}") as bar:
            manifest, ident = make_pack(tgt, files, out, progress=bar.update)
    except BadInput as e:
        fail_bad_input(" ".join(paths) or "corpus", "bad-vector", e)
    except EngineUnavailable as e:
        fail(directory, "unavailable", tgt.name, str(e))
    except NotOurs as e:
        fail(directory, "not-empty", "-", e.strerror)
    except OSError as e:
        fail(directory, "unwritable", "-", e.strerror or str(e))
    except CompileError as e:
        fail(directory, e.compiler, tgt.name, f"{e.compiler.capitalize()} refused a model: {e}")
    packed = [v["id"] for v in manifest["vectors"]]
    if as_json:
        click.echo(
            report_json(
                {
                    "identity": ident,
                    "not_packed": manifest["not_packed"],
                    "packed": packed,
                    "target": tgt.name,
                }
            )
        )
        return
    click.echo(
        f"{out}: {len(packed)} vectors packed for {tgt.name} "
        f"({manifest['layout']}), {len(manifest['not_packed'])} not for this target; "
        f"manifest {out / 'manifest.json'}\npack identity {ident}: the runner writes "
        'it into results.json as "pack"; keep this folder (or the identity) to judge '
        "the results with 'waiexport validate --results RESULTS --pack "
        f"{out}' (or --pack-sha256 {ident})"
    )


command = vectors
