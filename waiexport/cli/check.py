"""The ``check`` command, the first job: does a set fit ``wai-ops/1-npu``, and why not."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import fail, load_file, target_named, write_file
from .report import render_check


@click.command("check")
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--role",
    "roles",
    multiple=True,
    help="The role of each FILE, in order (default: the file's stem).",
)
@click.option("--capability", default=None, help="The capability string the certificate names.")
@click.option(
    "--profile",
    type=click.Choice(["acc32", "acc64"]),
    default=None,
    help="The profile to check against (default: acc32 with --subset npu, "
    "acc64 with --subset full).",
)
@click.option(
    "--subset",
    type=click.Choice(["npu", "full"]),
    default="npu",
    show_default=True,
    help="npu: the set must also be in wai-ops/1-npu (§9.2).",
)
@click.option(
    "--certificate",
    "cert_path",
    default=None,
    help="Write the canonical certificate (§8.5) here, whatever the verdict.",
)
@click.option(
    "--set-sha256",
    default=None,
    help="The set's digest, for set_sha256 (default null: certified on their own).",
)
@click.option(
    "--target",
    "target_name",
    default=None,
    help="Also say, per graph, whether it fits this target after its rewrites and "
    "mappings (the answer rewrite, export and validate give) and what it lacks.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the report as canonical JSON: {certificate_sha256, graphs: [{name, "
    "nodes: [{flags, index, op, out_bits}]}], meets, profile, subset, target, "
    "verdict}; the certificate itself is what --certificate writes.",
)
def check(files, roles, capability, profile, subset, cert_path, set_sha256, target_name, as_json):
    """Does a set fit the accelerator subset, and if not, why?

    Loads every FILE (§10.5 steps 1–7, then the bounds pass of step 8), computes the bounds
    certificate (§8), and reports the verdict per profile, why the set is outside
    wai-ops/1-npu, and per node its output bits against the 32-bit line, its multiply
    operands' bits and its flags, each with the §9.4 rewrite that addresses it.

    \b
    Exit status: 0 when the set meets the profile (and the subset), or with --target when
    every graph fits the target; 1 when not; 2 when a graph is refused at load.
    Example: waiexport check examples/tiny_synth.whg1 --target tosa
    """
    from waiexport.jobs import check as checked
    from waiexport.jobs.checks import set_digest
    from waiexport.load import read_member
    from waiexport.targets.errors import EngineUnavailable

    if target_name is not None:
        target_named(target_name)
    if roles and len(roles) != len(files):
        raise click.BadParameter(f"{len(roles)} roles for {len(files)} files", param_hint="--role")
    try:
        set_digest(set_sha256)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--set-sha256") from None
    names = list(roles) or [Path(f).stem for f in files]
    members = [
        load_file(path, as_json, lambda d, n=name: read_member(d, n))[1]
        for name, path in zip(names, files)
    ]
    try:
        result = checked(
            members,
            capability=capability,
            profile=profile,
            subset=subset,
            set_sha256=set_sha256,
            target=target_name,
        )
    except ValueError as e:  # a role or capability outside printable ASCII (§8.5)
        raise click.BadParameter(str(e)) from None
    except EngineUnavailable as e:
        fail(target_name, "unavailable", "-", str(e))
    if cert_path:
        write_file(cert_path, result.certificate_bytes)
    if as_json:
        click.echo(result.to_json())
        sys.exit(0 if result.ok else 1)
    click.echo(render_check(result.certificate, result.profile, subset))
    if subset == "npu" and result.profile == "acc64":
        click.echo(
            "note: wai-ops/1-npu needs acc32 (section 9.2 item 1), so the npu "
            "subset is judged against acc32 whatever --profile says"
        )
    for name, verdict in result.fits:
        click.echo(
            f"target {target_name}: {name} "
            f"{'fits' if verdict.fits else 'does not fit'}"
            + "".join(f"\n  {reason}" for reason in verdict.reasons)
        )
    sys.exit(0 if result.ok else 1)


command = check
