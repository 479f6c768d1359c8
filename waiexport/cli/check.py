"""The ``check`` command, the first job: does a set fit ``wai-ops/1-npu``, and why not."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from waiexport.jsonio import ascii_text, report_json

from .common import fit_target, load_file, target_named, write_file
from .report import render_check


@click.command("check")
@click.argument("files", nargs=-1, required=True)
@click.option("--role", "roles", multiple=True,
              help="The role of each FILE, in order (default: the file's stem).")
@click.option("--capability", default=None, help="The capability string the certificate names.")
@click.option("--profile", type=click.Choice(["acc32", "acc64"]), default=None,
              help="The profile to check against (default: acc32 with --subset npu, "
                   "acc64 with --subset full).")
@click.option("--subset", type=click.Choice(["npu", "full"]), default="npu", show_default=True,
              help="npu: the set must also be in wai-ops/1-npu (§9.2).")
@click.option("--certificate", "cert_path", default=None,
              help="Write the canonical certificate (§8.5) here, whatever the verdict.")
@click.option("--set-sha256", default=None,
              help="The set's digest, for set_sha256 (default null: certified on their own).")
@click.option("--target", "target_name", default=None,
              help="Also say, per graph, whether it fits this target after its rewrites and "
                   "mappings (the answer rewrite, export and validate give) and what it lacks.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the report as canonical JSON: {certificate_sha256, graphs: [{name, "
                   "nodes: [{flags, index, op, out_bits}]}], meets, profile, subset, target, "
                   "verdict}; the certificate itself is what --certificate writes.")
def check(files, roles, capability, profile, subset, cert_path, set_sha256, target_name,
          as_json):
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
    from waiexport.certificate import certificate_bytes, certify
    from waiexport.load import read_member

    tgt = target_named(target_name) if target_name is not None else None
    if roles and len(roles) != len(files):
        raise click.BadParameter(f"{len(roles)} roles for {len(files)} files", param_hint="--role")
    if set_sha256 is not None and (len(set_sha256) != 64 or set(set_sha256) - set("0123456789abcdef")):
        raise click.BadParameter("64 lowercase hexadecimal digits", param_hint="--set-sha256")
    profile = profile or ("acc32" if subset == "npu" else "acc64")
    names = list(roles) or [Path(f).stem for f in files]
    members = []
    for name, path in zip(names, files):
        members.append(load_file(path, as_json, lambda d, n=name: read_member(d, n))[1])
    try:
        cert = certify(members, capability=capability, set_sha256=set_sha256)
        blob = certificate_bytes(cert)
    except ValueError as e:  # a role or capability outside printable ASCII (§8.5)
        raise click.BadParameter(str(e)) from None
    if cert_path:
        write_file(cert_path, blob)
    v = cert["verdict"]
    meets = bool(v[profile] and (subset != "npu" or v["npu"]))
    if not as_json:
        click.echo(render_check(cert, profile, subset))
        if subset == "npu" and profile == "acc64":
            click.echo("note: wai-ops/1-npu needs acc32 (section 9.2 item 1), so the npu "
                       "subset is judged against acc32 whatever --profile says")
    fits = None
    if tgt is not None:
        fits = {}
        for name, path, member in zip(names, files, members):
            verdict = fit_target(path, member, tgt)
            fits[name] = verdict
            if not as_json:
                click.echo(f"target {tgt.name}: {name} "
                           f"{'fits' if verdict.fits else 'does not fit'}"
                           + "".join(f"\n  {reason}" for reason in verdict.reasons))
    if as_json:
        import hashlib
        click.echo(report_json({
            "certificate_sha256": hashlib.sha256(blob).hexdigest(),
            "graphs": [{"name": gr["name"], "nodes": [
                {"flags": n["npu_flags"], "index": n["index"], "op": n["op"],
                 "out_bits": [o["bits"] for o in n["out"]]} for n in gr["nodes"]]}
                for gr in cert["graphs"]],
            "meets": meets, "profile": profile, "subset": subset, "verdict": v,
            "target": None if fits is None else {
                "name": tgt.name, "fits": {n: f.fits for n, f in fits.items()},
                "reasons": {n: [ascii_text(r) for r in f.reasons] for n, f in fits.items()}}}))
    if fits is not None:
        sys.exit(0 if all(f.fits for f in fits.values()) else 1)
    sys.exit(0 if meets else 1)


command = check
