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
from .jsonio import BadInput, ascii_text, dumps, parse_decode, tensor_json
from .refusal import Refusal

__all__ = ["main"]


def fail(what: str, code: str, where: str, why: str) -> None:
    """End the command with one line, ``WHAT: CODE: WHERE: WHY``, and exit 2."""
    click.echo(f"{what}: {code}: {where}: {why}", err=True)
    sys.exit(2)


def _a_file(path: str, empty: str) -> Path:
    """``path`` as a file's path: empty (ends in one line with the code ``empty``) or a
    folder ends in one line."""
    if not path:
        fail("''", empty, "-", "an empty path")
    if Path(path).is_dir():
        fail(path, "not-a-file", "-", "a folder, where a file is expected")
    return Path(path)


def _read(path: str) -> bytes:
    """A file's bytes; a path that is missing, a folder or unreadable ends in one line."""
    p = _a_file(path, "not-found")
    try:
        return p.read_bytes()
    except FileNotFoundError:
        fail(path, "not-found", "-", "no such file")
    except OSError as e:
        fail(path, "unreadable", "-", e.strerror or str(e))


def _write(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``; a path that cannot be written ends in one line."""
    p = _a_file(path, "unwritable")
    try:
        p.write_bytes(data)
    except OSError as e:
        fail(path, "unwritable", "-", e.strerror or str(e))


def _writable(path: str) -> None:
    """End in one line, before any work, when a file cannot be written at ``path``."""
    import os
    p = _a_file(path, "unwritable")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        fail(path, "unwritable", "-", f"no folder {parent}")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        fail(path, "unwritable", "-", "permission denied")


def _folder(path: str) -> Path:
    """The folder ``path``, made if absent; one that cannot be ends in one line."""
    if not path:
        fail("''", "unwritable", "-", "an empty path")
    p = Path(path)
    if p.exists() and not p.is_dir():
        fail(path, "not-a-folder", "-", "a file, where a folder is expected")
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / ".waiexport-write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        fail(path, "unwritable", "-", e.strerror or str(e))
    return p


def _load(path: str, as_json: bool = False, loader=None, capability: str | None = None):
    """The bytes and what ``loader`` makes of them; a refusal prints one line (or
    ``{"refuse": code}`` with ``as_json``), in ``capability``'s codes when given, and exits 2;
    so does an engine that cannot take the graph."""
    from .codes import reported_code
    from .targets.errors import ExportError, NotForEngine
    from .whg1 import read
    data = _read(path)
    try:
        return data, (loader or read)(data)
    except Refusal as r:
        code = reported_code(capability, r.code)
        hint = " (a JSON file: 'waiexport lower int_synth FILE -o DIR' lowers an int_synth " \
               "set to WHG1)" if data[:1] == b"{" and r.code == "model_mismatch" else ""
        if as_json:
            click.echo(dumps({"refuse": code}))
            sys.exit(2)
        fail(path, code, r.where, f"{r.detail}{hint}")
    except (ExportError, NotForEngine) as e:
        fail(path, "does-not-fit", "-", str(e))


class _Cli(click.Group):
    """The command group: a mistake click catches (a bad option value, a missing argument)
    ends in one line too, not a usage block."""

    def main(self, *args, **kwargs):
        kwargs.pop("standalone_mode", None)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help())
            sys.exit(2)
        except click.UsageError as e:
            hint = getattr(e, "param_hint", None)
            if isinstance(hint, (list, tuple)):
                hint = " / ".join(hint)
            command = e.ctx.command_path if e.ctx else "waiexport"
            fail(str(hint or command).replace("'", ""), "usage", "-",
                 f"{e.format_message()} (see '{command} --help')")
        except click.ClickException as e:
            fail("waiexport", "error", "-", e.format_message())
        except click.Abort:
            fail("waiexport", "aborted", "-", "interrupted")
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="waiexport")
def main():
    """Check, export and validate exact-integer networks (wai-ops/1).

    Every refusal prints its spec code (model_mismatch, too_large, field_range,
    geometry_mismatch, ...) with where and why on one line, and exits 2.
    """


@main.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True,
              help="Print the description as canonical JSON: {bytes, inputs, max_elems, "
                   "operators, outputs, scalars, sha256, tensors}.")
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
    data, graph = _load(file)
    d = describe(graph, data)
    click.echo(dumps(d) if as_json else render_text(d, file))


@main.command()
@click.argument("graph")
@click.option("--decode", "decode_file", required=True,
              help="A §14.1 decode object, or a JSON array of them for a sequence.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"outputs": [...]} or {"refuse": code} per decode, canonical JSON.')
@click.option("--literal", is_flag=True,
              help="Run the literal implementation (scalar loops; slow, small inputs).")
@click.option("--engine", "engine_name", default="reference", show_default=True,
              help="reference, ort-cpu, npu-int8, tosa-ref, iree-cpu, "
                   "ort:<ExecutionProvider> (an exported model; the host loads against acc32 "
                   "and the engine's subset), or ort-cpu-acc64 / ort-acc64:<ExecutionProvider> "
                   "(acc64, all of wai-ops/1).")
@click.option("--capability", default=None,
              help="Report refusals in this capability's codes (§4): wai.neural.int_synth "
                   "reports payload_malformed for every one.")
def run(graph, decode_file, as_json, literal, engine_name, capability):
    """Run decodes through GRAPH on the exact reference, or on its exported model.

    The graph loads against the engine's profile (§10.5 steps 1–8): acc64 for the
    reference, acc32 and wai-ops/1-npu for an onnxruntime engine.

    DECODE.json holds one decode, {"inputs": [{"data": [...], "shape": [C, H, W]}, ...],
    "scalars": [...]}, with the data inputs only in input-table order and integers as decimal
    strings or JSON numbers (an "expect" member is ignored), or a JSON array of decodes: a
    sequence, whose state inputs start at their init and carry from each completed decode
    (§10.3). A refused decode changes no state and the sequence goes on.

    \b
    Exit status: 0 when every decode completes; 1 when a decode is refused; 2 when the graph
    is refused at load or does not fit the engine, or the input is malformed.
    Example: waiexport run examples/tiny_synth.whg1 --decode d.json --engine ort-cpu
    """
    from .reference import decode
    from .targets.engines import EngineFailure, Loaded, by_name

    eng = _engine(engine_name)
    from .codes import CAPABILITY_CODES, reported_code
    if capability is not None and capability not in CAPABILITY_CODES:
        fail("--capability", "usage", "-", f"unknown capability {capability!r}; known: "
             + ", ".join(CAPABILITY_CODES))
    _, loaded = _load(graph, as_json, eng.load, capability)
    if literal:
        loaded = Loaded(loaded.graph, lambda i, s: by_name(decode(loaded.graph, i, s,
                                                                  literal=True)))
    g = loaded.graph
    try:
        doc = json.loads(_read(decode_file))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as e:
        fail(decode_file, "bad-json", "-", f"not JSON: {str(e)[:200]}")
    decodes = doc if isinstance(doc, list) else [doc]
    if not decodes:
        fail(decode_file, "bad-decode", "-", "an empty array: nothing to run")
    n_data = sum(1 for i in g.inputs if i.kind == "data")
    try:
        parsed = [parse_decode(d, n_data, len(g.scalars), f"decode {k}")
                  for k, d in enumerate(decodes)]
    except BadInput as e:
        fail(decode_file, "bad-decode", "-", str(e))
    seq = loaded.sequence()
    results = []
    for k, (inputs, scalars) in enumerate(parsed):
        try:
            results.append({"outputs": seq.step(inputs, scalars)})
        except EngineFailure as e:
            fail(f"--engine {eng.name}", "engine-failure", f"decode {k}", str(e))
        except Refusal as r:
            code = reported_code(capability, r.code)
            results.append({"refuse": code, "why": f"{code}: {r.where}: {r.detail}"})
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


@main.command()
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
    Example: waiexport check synth.whg1 --target tosa
    """
    from .certificate import Member, certificate_bytes, certify
    from .whg1 import read

    if roles and len(roles) != len(files):
        raise click.BadParameter(f"{len(roles)} roles for {len(files)} files", param_hint="--role")
    if set_sha256 is not None and (len(set_sha256) != 64 or set(set_sha256) - set("0123456789abcdef")):
        raise click.BadParameter("64 lowercase hexadecimal digits", param_hint="--set-sha256")
    profile = profile or ("acc32" if subset == "npu" else "acc64")
    names = list(roles) or [Path(f).stem for f in files]
    members = []
    for name, path in zip(names, files):
        members.append(_load(path, as_json, lambda d, n=name: Member.of(n, d, read(d)))[1])
    from .report import render_check
    try:
        cert = certify(members, capability=capability, set_sha256=set_sha256)
        blob = certificate_bytes(cert)
    except ValueError as e:  # a role or capability outside printable ASCII (§8.5)
        raise click.BadParameter(str(e)) from None
    if cert_path:
        _write(cert_path, blob)
    v = cert["verdict"]
    meets = bool(v[profile] and (subset != "npu" or v["npu"]))
    if not as_json:
        click.echo(render_check(cert, profile, subset))
        if subset == "npu" and profile == "acc64":
            click.echo("note: wai-ops/1-npu needs acc32 (section 9.2 item 1), so the npu "
                       "subset is judged against acc32 whatever --profile says")
    fits = None
    if target_name is not None:
        from .targets.exporter import fit
        tgt = _target(target_name)
        fits = {}
        for name, path in zip(names, files):
            verdict = _fit(path, fit, _read(path), tgt)
            fits[name] = verdict
            if not as_json:
                click.echo(f"target {tgt.name}: {name} "
                           f"{'fits' if verdict.fits else 'does not fit'}"
                           + "".join(f"\n  {reason}" for reason in verdict.reasons))
    if as_json:
        import hashlib
        click.echo(dumps({
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


@main.group()
def targets():
    """Target descriptions: what an accelerator's units accept."""


@targets.command("list")
@click.option("--json", "as_json", is_flag=True,
              help="Print [{engine, format, name, summary}] as canonical JSON.")
def targets_list(as_json):
    """Name every target with a line about it.

    \b
    Exit status: 0.
    Example: waiexport targets list
    """
    from .descriptions import TARGETS
    if as_json:
        click.echo(dumps([{"engine": t.engine, "format": t.fmt, "name": t.name,
                           "summary": t.summary} for t in TARGETS.values()]))
        return
    for t in TARGETS.values():
        click.echo(f"{t.name:<14} {t.summary}")


@targets.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True,
              help="Print the description's fields as canonical JSON.")
def targets_show(name, as_json):
    """Print target NAME's supported-operators report.

    \b
    Exit status: 0; 2 for an unknown target.
    Example: waiexport targets show tosa
    """
    import dataclasses
    t = _target(name)
    click.echo(dumps({k: [ascii_text(str(x)) for x in v] if isinstance(v, tuple) else
                      ascii_text(v) if isinstance(v, str) else v
                      for k, v in dataclasses.asdict(t).items()})
               if as_json else t.report())


@main.command()
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
    Example: waiexport rewrite hs_y.whg1 --target npu-int8 -o hs_y.npu.whg1
    """
    from .rewrites.manager import rewrite_for
    from .targets.exporter import fit

    tgt = _target(target_name)
    from .load import load
    data, member = _load(source, as_json, load)
    outcome = rewrite_for(member.graph, tgt, Path(source).stem)
    _write(output, outcome.data)
    verdict = _fit(source, fit, data, tgt)
    at_export = [(i, op, lim) for i, op, lims in outcome.remaining for lim in lims
                 if lim.mapped]
    if as_json:
        click.echo(dumps({
            "after": outcome.after["verdict"], "before": outcome.before["verdict"],
            "changes": [{"applied": c.applied, "node": c.node, "op": c.op,
                         "reason": ascii_text(c.reason or ""), "rewrite": c.key}
                        for c in outcome.changes],
            "fits": verdict.fits, "reasons": [ascii_text(r) for r in verdict.reasons],
            "mapped_at_export": [{"mapping": ascii_text(lim.words), "node": outcome.sources[i],
                                  "now": i, "op": op} for i, op, lim in at_export],
            "output_sha256": outcome.after["graphs"][0]["graph_sha256"],
            "target": tgt.name}))
    else:
        click.echo(f"{source} → {output} for {tgt.name}")
        for c in outcome.changes:
            what = "applied" if c.applied else f"not applied: {c.reason}"
            click.echo(f"  node {c.node} {c.op}: {c.rewrite}: {what}")
        if not outcome.changes:
            click.echo("  nothing to rewrite")
        for i, op, lim in at_export:
            click.echo(f"  {outcome.label(i)} {op}: at export: {lim}")
        for reason in verdict.reasons:
            click.echo(f"  does not fit: {reason}")
        yes = {True: "yes", False: "no"}
        b, a = outcome.before["verdict"], outcome.after["verdict"]
        click.echo(f"acc32 before {yes[b['acc32']]}, after {yes[a['acc32']]}; "
                   f"{'fits' if verdict.fits else 'does not fit'} {tgt.name}")
    sys.exit(0 if verdict.fits else 1)


def _target(name: str):
    """The target called ``name``; an unknown one ends in one line, exit 2."""
    from .descriptions import target
    try:
        return target(name)
    except KeyError as e:
        fail("--target", "usage", "-", e.args[0])


def _fit(path: str, fit, data: bytes, tgt):
    """:func:`waiexport.targets.exporter.fit`, a load refusal or a missing tool ending in
    one line."""
    from .targets.errors import EngineUnavailable
    try:
        return fit(data, tgt, Path(path).stem)
    except Refusal as r:
        fail(path, r.code, r.where, r.detail)
    except EngineUnavailable as e:
        fail(path, "unavailable", tgt.name, str(e))


def _size(text: str) -> tuple[int, int]:
    try:
        h, w = (int(v) for v in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not HxW (two sizes, e.g. 16x16)",
                                 param_hint="--size") from None
    if h < 1 or w < 1:
        raise click.BadParameter(f"{text!r}: sizes are at least 1", param_hint="--size")
    return h, w


@main.command()
@click.argument("graph")
@click.option("--target", "target_name", default="ort-cpu", show_default=True,
              help="A target (waiexport targets list): ort-cpu and npu-int8 write ONNX, tosa "
                   "writes a TOSA 1.0 flatbuffer.")
@click.option("-o", "--output", required=True,
              help="ONNX and tosa targets: the model file to write (a TOSA model gets its "
                   "provenance beside it in OUTPUT.json). Ethos-U targets: a folder, for "
                   "GRAPH.tosa, its provenance, and Vela's GRAPH_vela.tflite and summary.")
@click.option("--size", "sizes", multiple=True,
              help="HxW of each data input, for a TOSA model (TOSA shapes are static) when "
                   "the graph declares no sizes.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {bytes, metadata, model, nodes, rewrites, self_check, target} as "
                   "canonical JSON when written.")
def export(graph, target_name, output, sizes, as_json):
    """Export GRAPH to a model of integer tensors only, for a target.

    check (acc32 and wai-ops/1-npu) → rewrite for the target → export → a self-check of the
    model against the exact reference, on inputs at the ends of the declared ranges (on
    onnxruntime for ONNX, on the TOSA reference model for TOSA). The model names the SHA-256
    of GRAPH, of the rewritten graph and of the certificate, the target and this tool's
    version (ONNX metadata; for TOSA, OUTPUT.json).

    \b
    Exit status: 0 when the model is written and matches the reference; 1 when the graph
    does not fit, cannot be mapped, or the self-check differs; 2 when GRAPH is refused at load.
    Example: waiexport export hs_y.whg1 --target tosa --size 16x16 -o hs_y.tosa
    """
    from .targets.errors import EngineUnavailable

    tgt = _target(target_name)
    data, _ = _load(graph)
    if tgt.vela:
        _folder(output)
    else:
        _writable(output)
    try:
        _export(graph, tgt, data, output, sizes, as_json)
    except EngineUnavailable as e:
        fail(graph, "unavailable", tgt.name, str(e))


def _export(graph: str, tgt, data: bytes, output: str, sizes, as_json: bool) -> None:
    """The body of ``export``, once GRAPH has loaded: exits."""
    from .targets.errors import ExportError
    from .targets.exporter import export as export_graph, self_check
    try:
        exp = export_graph(data, tgt, Path(graph).stem)
    except Refusal as r:
        click.echo(f"{graph}: does not fit: {r}", err=True)
        sys.exit(1 if r.code == "model_mismatch" else 2)
    except ExportError as e:
        click.echo(f"{graph}: cannot export for {tgt.name}: {e}", err=True)
        sys.exit(1)
    rewrites = [f"node {c.node} {c.op}: {c.rewrite}" for c in exp.outcome.changes if c.applied]
    if not as_json:
        for line in rewrites:
            click.echo(f"rewrite: {line}")
    if tgt.fmt == "tosa":
        _export_tosa(graph, exp, output, [_size(s) for s in sizes], as_json, rewrites, tgt)
    probes, difference = self_check(exp)
    if difference:
        click.echo(f"self-check failed: {difference}", err=True)
        sys.exit(1)
    blob = exp.model.SerializeToString()
    _write(output, blob)
    if as_json:
        click.echo(dumps({"bytes": len(blob), "metadata": exp.metadata, "model": output,
                          "nodes": len(exp.model.graph.node),
                          "rewrites": [ascii_text(r) for r in rewrites],
                          "self_check": {"bit_exact": True, "decodes": probes},
                          "target": tgt.name}))
    else:
        click.echo(f"{output}: {len(exp.model.graph.node)} nodes, {len(blob)} bytes, integer "
                   f"tensors only; self-check: {probes} decodes bit-exact against the "
                   "reference")
    sys.exit(0)


def _tosa_model(graph: str, exp, sizes: list):
    """The TOSA model of ``exp`` on one decode shape (``sizes``, or the declared ones), and
    the probes it was self-checked on against the reference, on the TOSA reference model,
    with these very bytes; a missing or unplannable size ends in one line, a difference in
    exit 1."""
    from .plan import run_plan
    from .reference import decode
    from .targets.engines import EngineFailure, by_name, in_order, run_tosa, tosa_feed
    from .targets.exporter import probe_inputs
    from .targets.onnx.export import ExportError

    g = exp.graph
    data_inputs = [i for i in g.inputs if i.kind == "data"]
    if not sizes and g.declares_sizes:
        sizes = [(i.max_h, i.max_w) for i in data_inputs]
    if len(sizes) != len(data_inputs):
        fail(graph, "needs-size", "-", "the graph declares no input sizes and TOSA shapes are "
             f"static: give --size HxW for each of its {len(data_inputs)} data inputs")
    size = iter(sizes)
    shapes = [(g.tensor(i.tensor).channels, *(next(size) if i.kind == "data" else sizes[0]))
              for i in g.inputs]
    try:
        run_plan(g, shapes, [s.lo for s in g.scalars])
    except Refusal as r:
        fail(graph, r.code, f"--size {' '.join(f'{h}x{w}' for h, w in sizes)}: {r.where}",
             r.detail)
    probes = probe_inputs(g, sizes=sizes[:1])
    try:
        model = exp.tosa([tuple(x.shape) for x in probes[0][0]])
    except ExportError as e:
        click.echo(f"{graph}: cannot export for {exp.metadata['wai.target']}: {e}", err=True)
        sys.exit(1)
    for n, (inputs, scalars) in enumerate(probes):
        try:
            same = all((a == b).all() for a, b in zip(
                decode(exp.source, inputs, scalars),
                in_order(g, by_name(run_tosa(model, tosa_feed(g, model, inputs, scalars))),
                         inputs, scalars), strict=True))
            why = "differs from the reference"
        except EngineFailure as e:
            same, why = False, str(e)
        if not same:
            click.echo(f"self-check failed: decode {n}: {why}", err=True)
            sys.exit(1)
    return model, probes


def _export_tosa(graph: str, exp, output: str, sizes: list, as_json: bool,
                 rewrites: list, tgt) -> None:
    """Write the TOSA model of ``exp`` and its provenance; for an Ethos-U target, into the
    folder ``output`` with Vela's compile of it and Vela's report. Exits."""
    from .targets.vela import VelaError, compile_vela
    model, probes = _tosa_model(graph, exp, sizes)
    provenance = {**exp.metadata,
                  "wai.inputs": [{"dtype": d, "nhwc": list(s)} for s, d in model.inputs],
                  "wai.outputs": [{"dtype": d, "nhwc": list(s)} for s, d in model.outputs]}
    path = str(_folder(output) / f"{Path(graph).stem}.tosa") if tgt.vela else output
    _write(path, model.data)
    _write(path + ".json", (dumps(provenance) + "\n").encode())
    report = {"bytes": len(model.data), "metadata": provenance, "model": path,
              "rewrites": [ascii_text(r) for r in rewrites],
              "self_check": {"bit_exact": True, "decodes": len(probes),
                             "on": "the TOSA reference model"}, "target": tgt.name}
    lines = [f"{path}: TOSA 1.0, {len(model.data)} bytes, integer tensors only, inputs "
             + ", ".join(f"{d} {list(s)}" for s, d in model.inputs)
             + f"; self-check: {len(probes)} decodes bit-exact on the TOSA reference model; "
             f"provenance in {path}.json"]
    if tgt.vela:
        try:
            vela = compile_vela(Path(path), tgt.vela, Path(output))
        except VelaError as e:
            fail(path, "vela", tgt.vela, f"Vela refused it: {e}")
        report["vela"] = vela.as_dict()
        lines += [f"every node fits {tgt.name} (its limits: waiexport targets show {tgt.name})",
                  *vela.lines()]
        if vela.cpu_ops:
            lines.append(f"  {vela.cpu_ops} operators are not on the NPU")
    click.echo(dumps(report) if as_json else "\n".join(lines))
    sys.exit(0)


@main.group()
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
    from .conformance.generate import generate
    written = [str(p) for p in generate(_folder(outdir))]
    click.echo(dumps({"written": written}) if as_json else "\n".join(written))


@vectors.command("check")
@click.argument("directory")
@click.option("--json", "as_json", is_flag=True,
              help="Print {files: [{difference, path, same}], skipped: [paths]} as JSON.")
def vectors_check(directory, as_json):
    """Recompute every vector under DIRECTORY with the literal evaluator and the
    term-by-term bounds fold, write each file again and compare bytes; files under stage/
    or certificates/ are skipped with a note.

    \b
    Exit status: 0 when every file is reproduced; 1 when one differs; 2 when DIRECTORY is
    not a folder or holds a line that is not a vector.
    Example: waiexport vectors check conformance/corpus
    """
    from .conformance.checker import check_dir
    from .jsonio import BadInput
    if not Path(directory).is_dir():
        fail(directory, "not-a-folder", "-", "a folder of vector files is expected")
    try:
        checks, skipped = check_dir(Path(directory))
    except BadInput as e:
        fail(directory, "bad-vector", "-", str(e))
    if as_json:
        click.echo(dumps({"files": [{"difference": ascii_text(c.first_difference or ""),
                                     "path": str(c.path), "same": c.same} for c in checks],
                          "skipped": [str(p) for p in skipped]}))
        sys.exit(0 if all(c.same for c in checks) else 1)
    for path in skipped:
        click.echo(f"skipped {path}: stage and certificate vectors are not checked yet")
    for c in checks:
        click.echo(f"{'same' if c.same else 'DIFFERS'} {c.path}"
                   + (f": {c.first_difference}" if c.first_difference else ""))
    sys.exit(0 if all(c.same for c in checks) else 1)


@vectors.command("pack")
@click.option("--target", "target_name", default="ort-cpu", show_default=True,
              help="The target whose models the pack holds (waiexport targets list).")
@click.argument("directory")
@click.argument("paths", nargs=-1)
@click.option("--json", "as_json", is_flag=True,
              help="Print {not_packed, packed, target} as canonical JSON.")
def vectors_pack(target_name, directory, paths, as_json):
    """Write a pack of the vectors in PATHS (default: the committed corpus) that the target
    takes, for a runner this process cannot drive (a board, an FVP, a vendor runtime): each
    vector's model exported for the target, each decode's inputs only as .npy in the model's
    layout, the refusals the host must make, and DIRECTORY/manifest.json with every digest.
    The expected outputs are not in the pack. The runner writes
    outputs/<id>/<decode>/<name>.npy and results.json ({"ran_on": "..."}) into DIRECTORY;
    'waiexport validate --results DIRECTORY' judges them.

    \b
    Exit status: 0 when written; 2 for an unknown target, an unreadable vector file or an
    unwritable DIRECTORY.
    Example: waiexport vectors pack --target ethos-u55-128 /tmp/pack
    """
    from .conformance.generate import CORPUS
    from .conformance.packs import make_pack
    from .conformance.validate import files_under
    from .targets.errors import EngineUnavailable
    tgt = _target(target_name)
    out = Path(directory)
    _folder(str(out.parent) if str(out.parent) else ".")
    if out.exists() and not out.is_dir():
        fail(directory, "not-a-folder", "-", "a file, where a folder is expected")
    try:
        manifest, ident = make_pack(tgt, files_under([Path(p) for p in paths] or [CORPUS]), out)
    except BadInput as e:
        fail(" ".join(paths) or "corpus", "bad-vector", "-", str(e))
    except EngineUnavailable as e:
        fail(directory, "unavailable", tgt.name, str(e))
    except OSError as e:
        fail(directory, "unwritable", "-", e.strerror or str(e))
    packed = [v["id"] for v in manifest["vectors"]]
    if as_json:
        click.echo(dumps({"identity": ident, "not_packed": manifest["not_packed"],
                          "packed": packed, "target": tgt.name}))
        return
    click.echo(f"{out}: {len(packed)} vectors packed for {tgt.name} "
               f"({manifest['layout']}), {len(manifest['not_packed'])} not for this target; "
               f"manifest {out / 'manifest.json'}\npack identity {ident}: the runner writes "
               "it into results.json as \"pack\"; keep this folder (or the identity) to judge "
               "the results with 'waiexport validate --results RESULTS --pack "
               f"{out}' (or --pack-sha256 {ident})")


def _engine(name: str, fallback: bool = False):
    """The engine called ``name``; an unknown or unavailable one ends in one line, exit 2."""
    from .targets.engines import engine
    from .targets.errors import EngineUnavailable
    try:
        return engine(name, fallback=fallback)
    except KeyError as e:
        raise click.BadParameter(e.args[0], param_hint="--engine") from None
    except EngineUnavailable as e:
        click.echo(f"--engine {name}: unavailable: {e}", err=True)
        sys.exit(2)


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--engine", "engine_name", default="reference", show_default=True,
              help="reference, ort-cpu, npu-int8, tosa-ref, iree-cpu, ort:<ExecutionProvider> "
                   "(CPU fallback disabled), ort-cpu-acc64 / ort-acc64:<ExecutionProvider> "
                   "(acc64: every graph of wai-ops/1), or an engine registered under the entry "
                   "point group waiexport.engines.")
@click.option("--allow-fallback", is_flag=True,
              help="Let an ort:<Provider> engine place the nodes its provider declines on "
                   "onnxruntime's CPU provider; each vector then says where its nodes ran, and "
                   "one that ran partly elsewhere is never counted as a pass.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the report as canonical JSON (section 8.5): {claim, engine, files, "
                   "totals, vectors}; see the README for its schema.")
@click.option("--locate", is_flag=True,
              help="For a differing output, ask the engine for every intermediate tensor and "
                   "name the first operator that differs, the first node inside its lowering "
                   "that differs from onnx's reference evaluator, and a diagnosis.")
@click.option("--results", "results", default=None,
              help="Judge the outputs a runner elsewhere wrote for a pack (waiexport vectors "
                   "pack) instead of running an engine: RESULTS holds outputs/ and "
                   "results.json.")
@click.option("--pack", "pack", default=None,
              help="With --results: your own copy of the pack the results are for (the "
                   "folder vectors pack wrote). Default: RESULTS itself, which then needs "
                   "--pack-sha256.")
@click.option("--pack-sha256", "pack_sha256", default=None,
              help="With --results: the pack's identity, as vectors pack printed it; the "
                   "manifest judged must have it.")
def validate(paths, engine_name, allow_fallback, as_json, locate, results, pack, pack_sha256):
    """Run conformance vectors on an engine, bit for bit, refusals included.

    PATHS are .jsonl files or folders of them (default: the committed corpus). Every vector
    whose profiles include the engine's profile and whose graph lies in the engine's subset
    runs; the rest are counted, by reason, as not for this engine. A failing output is
    reported by its first differing index, how many elements differ, the largest difference
    and a histogram of the differences. The claim, naming the engine's packages and versions,
    is printed only when nothing failed or ran elsewhere.

    \b
    Exit status: 0 when every applicable vector passes; 1 when one fails or ran elsewhere;
    2 when the engine is unknown or unavailable, a vector file cannot be read or a line of
    it is not a vector, or there is nothing to validate.
    Example: waiexport validate --engine ort-cpu --json
    """
    from .conformance.generate import CORPUS
    from .conformance.validate import files_under, read_all, render, report

    if results is not None:
        _judge_results(Path(results), Path(pack or results), pack_sha256,
                       files_under([Path(p) for p in paths] or [CORPUS]), as_json)
    eng = _engine(engine_name, allow_fallback)
    where = " ".join(paths) or str(CORPUS)
    try:
        read = read_all(files_under([Path(p) for p in paths] or [CORPUS]))
    except BadInput as e:
        click.echo(f"{e}", err=True)
        sys.exit(2)
    total = sum(len(vectors) for _, vectors in read)
    if not total:
        click.echo(f"{where}: nothing to validate: no vector in "
                   f"{len(read)} .jsonl file{'' if len(read) == 1 else 's'}", err=True)
        sys.exit(2)
    results = _run_vectors(eng, read, f"validating {eng.name}", locate)
    rep = report(eng, results)
    click.echo(dumps(rep, strict=False) if as_json else render(rep))
    if all(r.status == "skip" for r in results):
        fail(where, "nothing-ran", f"--engine {eng.name}",
             f"none of the {total} vectors is for this engine: nothing was validated")
    sys.exit(0 if all(r.status in ("pass", "skip") for r in results) else 1)


def _run_vectors(eng, read: list, label: str, locate: bool = False) -> list:
    """Every vector of ``read`` (:func:`~.conformance.validate.read_all`) on ``eng``, with a
    progress bar on stderr."""
    from .conformance.validate import validate as run_all
    with click.progressbar(length=sum(len(v) for _, v in read), label=label, file=sys.stderr,
                           show_pos=True) as bar:
        return run_all(eng, read, progress=bar.update, locate=locate)


def _judge_results(results: Path, pack: Path, pack_sha256: str | None, files: list,
                   as_json: bool) -> None:
    """``validate --results``: the report of a pack's results, judged against the vector
    files ``files``; exits."""
    import re

    from .conformance.packs import judge
    from .conformance.validate import render, report
    for folder, what in ((results, "results"), (pack, "pack")):
        if not folder.is_dir():
            fail(str(folder), "not-a-folder", "-", f"a folder of {what} is expected")
    if pack_sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", pack_sha256):
        fail("--pack-sha256", "usage", "-", "64 lowercase hexadecimal digits, as vectors pack "
             "printed them")
    if pack.resolve() == results.resolve() and pack_sha256 is None:
        fail(str(results), "usage", "--pack", "the results folder's own manifest cannot vouch "
             "for itself: give --pack with the pack you made, or --pack-sha256 with the "
             "identity vectors pack printed")
    try:
        outcomes, eng, problems = judge(pack, results, files, pack_sha256)
    except BadInput as e:
        fail(str(results), "bad-results", "-", str(e))
    for line in problems:
        click.echo(line, err=True)
    rep = report(eng, outcomes)
    if problems:
        rep["claim"] = None
    rep["result_problems"] = problems
    click.echo(dumps(rep, strict=False) if as_json else render(rep))
    sys.exit(0 if all(o.status in ("pass", "skip") for o in outcomes) and not problems else 1)


@main.command()
@click.argument("form", type=click.Choice(["int_synth", "jpegai"]))
@click.argument("source")
@click.option("-o", "--output", required=True,
              help="The folder for <role>.whg1 and certificate.json.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {verdict, written: [paths]} as canonical JSON.")
def lower(form, source, output, as_json):
    """Lower a set in a registered form to canonical WHG1 graphs (§13).

    SOURCE is an int_synth.json file (int_synth/1, §13.1), or a wai.image.jpegai bundle
    folder holding norm.json and weights/ (jpegai-int/1, §13.6.1). Writes OUTPUT/<role>.whg1
    for each graph (synth; hs_y, hs_uv) and OUTPUT/certificate.json, the set's certificate
    with its lowering and capability.

    \b
    Exit status: 0 when lowered; 2 when the set is refused (payload_malformed for int_synth,
    model_mismatch for jpegai) or a path cannot be read or written.
    Example: waiexport lower int_synth examples/int_synth.json -o /tmp/synth
    """
    from .certificate import certificate_bytes
    from .capabilities.lower import lower_set
    src = Path(source)
    if form == "int_synth":
        _read(source)
    elif not src.is_dir():
        fail(source, "not-found" if not src.exists() else "not-a-folder", "-",
             "a wai.image.jpegai bundle is a folder holding norm.json and weights/")
    try:
        graphs, cert = lower_set(form, src)
    except Refusal as r:
        fail(source, r.code, r.where, r.detail)
    except OSError as e:
        fail(source, "unreadable", "-", e.strerror or str(e))
    from .whg1 import write
    out = _folder(output)
    written = []
    for role, g in graphs.items():
        _write(str(out / f"{role}.whg1"), write(g))
        written.append(str(out / f"{role}.whg1"))
    _write(str(out / "certificate.json"), certificate_bytes(cert))
    written.append(str(out / "certificate.json"))
    click.echo(dumps({"verdict": cert["verdict"], "written": written}) if as_json
               else "\n".join(written))


@main.group()
def examples():
    """Example sets: make them, or run the main job on them."""


@examples.command("make")
@click.argument("directory")
@click.option("--full", is_flag=True, help="Realistic sizes (192→128→64→3 int_synth, "
                                           "128-channel jpegai blocks), not the small ones.")
@click.option("--json", "as_json", is_flag=True, help="Print {written: [paths]} as JSON.")
def examples_make(directory, full, as_json):
    """Write example sets, deterministically: an int_synth.json (each layer's shift chosen
    from its activations on seeded latents, so its output spans most of 0..255), a jpegai
    bundle, the two boundary sets of §14.3, and tiny_synth.whg1.

    \b
    Exit status: 0 when written; 2 when DIRECTORY cannot be written.
    Example: waiexport examples make /tmp/ex --full
    """
    from .capabilities.examples import make
    written = [str(p) for p in make(_folder(directory), full)]
    click.echo(dumps({"written": written}) if as_json else "\n".join(written))


@examples.command("run")
@click.argument("directory", default=None,
                required=False)
@click.option("--json", "as_json", is_flag=True,
              help="Print {passed, steps: [lines]} as canonical JSON at the end.")
def examples_run(directory, as_json):
    """The main job on the example sets (default: the bundled examples/): lower → check →
    rewrite for ort-cpu → export → run on onnxruntime → bit-exact against the reference, then
    validate the committed corpus on the reference and on onnxruntime.

    \b
    Exit status: 0 when every check passes; 1 when one fails; 2 when DIRECTORY holds no
    int_synth.json.
    Example: waiexport examples run
    """
    from .pipeline import main_job
    root = Path(directory) if directory else Path(__file__).resolve().parent.parent / "examples"
    if not (root / "int_synth.json").exists():
        fail(str(root), "not-found", "int_synth.json",
             "no int_synth.json here; make one with 'waiexport examples make DIR'")
    steps: list = []
    ok = main_job(root, steps.append if as_json else click.echo)
    if as_json:
        click.echo(dumps({"passed": ok, "steps": [ascii_text(line) for line in steps]}))
    sys.exit(0 if ok else 1)


@main.group()
def jpegai():
    """The wai.image.jpegai entropy path (section 13.6.1)."""


@jpegai.command("decode")
@click.argument("bundle")
@click.option("--soz", required=True, help="The SOZ segment's payload (both planes' "
                                           "hyper-latents, luma first).")
@click.option("--sorp", required=True, help="The SORP segment's payload (the luma latent).")
@click.option("--sors", required=True, help="The SORS segment's payload (the chroma latent).")
@click.option("--grfs-y", "grfs_y", required=True,
              help="The luma GRFS flags: 160 '0'/'1' characters, or a JSON array.")
@click.option("--grfs-uv", "grfs_uv", required=True,
              help="The chroma GRFS flags: 96 '0'/'1' characters, or a JSON array.")
@click.option("--engine", "engine_name", default="reference", show_default=True,
              help="The engine that runs the scale graphs: reference, ort-cpu, npu-int8, "
                   "tosa-ref, iree-cpu, ort:<ExecutionProvider>, or a registered plugin.")
@click.option("--compare", is_flag=True,
              help="Run the scale graphs on the reference too and report, per plane, whether "
                   "v, the mask, likely, sigma_idx and y_q agree, and where they first differ.")
@click.option("--no-validate", "no_validate", is_flag=True,
              help="Do not validate the engine on the committed corpus for the summary.")
@click.option("-o", "--output", required=True, help="The folder for the .npy files and "
                                                    "summary.json.")
@click.option("--json", "as_json", is_flag=True,
              help="Print summary.json (canonical JSON): {compare, engine, planes, validated}.")
def jpegai_decode(bundle, soz, sorp, sors, grfs_y, grfs_uv, engine_name, compare, no_validate,
                  output, as_json):
    """Decode both planes' entropy path: the segment payloads to z, v, the mask, likely,
    sigma_idx and y_q (section 13.6.1 steps 1-4).

    The codestream syntax (ISO/IEC 6048-1) is not in our text: extract each segment's
    payload (the bytes after its marker and length field) and the component headers' GRFS
    flags yourself. The scale graphs run on --engine; the stage operators on the host. Writes
    OUTPUT/<plane>_<name>.npy (plane y or uv) and OUTPUT/summary.json with their SHA-256
    digests (little-endian int64, CHW), the engine, and whether it passes validate on the
    committed corpus for its profile (section 12: only a conforming implementation backs the
    claim).

    \b
    Exit status: 0 when both planes decode (and, with --compare, agree with the reference);
    1 when --compare finds a difference; 2 for a bundle that fails a load check or flags of
    the wrong count (model_mismatch), a payload the window runs out of (stream_exhausted), a
    path that cannot be read or written, or an unknown engine.
    Example: waiexport jpegai decode examples/jpegai --soz examples/jpegai/streams/soz.bin
      --sorp examples/jpegai/streams/sorp.bin --sors examples/jpegai/streams/sors.bin
      --grfs-y examples/jpegai/streams/grfs_y.txt --grfs-uv examples/jpegai/streams/grfs_uv.txt
      --engine ort-cpu --compare -o /tmp/decoded
    """
    import numpy as np

    from .capabilities.jpegai_entropy import PLANES, compare as compare_planes, decode_planes, digest, read_flags
    from .capabilities.jpegai import lower_jpegai, read_norm
    from .reference.stage import StageRefusal
    src = Path(bundle)
    if not src.is_dir():
        fail(bundle, "not-found" if not src.exists() else "not-a-folder", "-",
             "a wai.image.jpegai bundle is a folder holding norm.json and weights/")
    try:
        norm, graphs = read_norm(src), lower_jpegai(src)
    except Refusal as r:
        fail(bundle, r.code, r.where, r.detail)
    payloads = {"SOZ": (soz, _read(soz)), "SORP": (sorp, _read(sorp)), "SORS": (sors, _read(sors))}
    flags = {}
    for plane, path in (("y", grfs_y), ("uv", grfs_uv)):
        try:
            flags[plane] = read_flags(_read(path), PLANES[plane][1],
                                      f"GRFS flags of plane {plane}")
        except Refusal as r:
            fail(path, r.code, r.where, r.detail)
    eng = _engine(engine_name)
    out = _folder(output)
    sides = {"engine": eng} | ({"reference": _engine("reference")} if compare else {})
    planes: dict = {}
    latents = {k: payloads[k][1] for k in ("SORP", "SORS")}
    for side, e in sides.items():
        try:
            planes[side] = decode_planes(norm, graphs, lambda role, data, e=e: _load_scale(
                e, data, role), payloads["SOZ"][1], latents, flags)
        except StageRefusal as r:
            fail(payloads["SOZ"][0], r.code, f"hyper-latent, position {r.at}", r.detail)
    mine = planes["engine"]
    refused = {p: pl.refused for p, pl in mine.items() if pl.refused}
    report = {p: compare_planes(mine[p], planes["reference"][p]) for p in mine} if compare \
        else None
    differs = compare and any(not d["agree"] for c in report.values() for d in c.values())
    if refused and not differs:     # a refused decode gives nothing but its one line
        plane, r = next(iter(refused.items()))
        fail(payloads[PLANES[plane][4]][0], r.code, f"latent of plane {plane}, position {r.at}",
             r.detail)
    summary = {"engine": eng.name, "planes": {}, "compare": report, "validated": None}
    for plane, pl in mine.items():
        summary["planes"][plane] = {}
        for name, a in pl.values.items():
            np.save(out / f"{plane}_{name}.npy", a)
            summary["planes"][plane][name] = {"shape": list(a.shape), "sha256": digest(a)}
        if pl.refused:
            summary["planes"][plane]["refused"] = {"code": pl.refused.code, "at": pl.refused.at}
    if not no_validate:
        summary["validated"] = _validated(eng)
    _write(str(out / "summary.json"), (dumps(summary) + "\n").encode())
    if as_json:
        click.echo(dumps(summary))
    else:
        _say_decode(summary, out)
    sys.exit(1 if differs else 0)


def _load_scale(eng, data: bytes, role: str):
    """The engine's load of a scale graph; one that cannot take it ends in one line."""
    from .targets.errors import DoesNotFit, NotForEngine
    try:
        return eng.load(data)
    except Refusal as r:
        fail(f"--engine {eng.name}", r.code, role, r.detail)
    except (DoesNotFit, NotForEngine) as e:
        fail(f"--engine {eng.name}", "does-not-fit", role, str(e))


def _validated(eng) -> dict:
    """Whether ``eng`` passes validate on the committed corpus for its profile."""
    from .conformance.generate import CORPUS
    from .conformance.validate import files_under, read_all, report
    read = read_all(files_under([CORPUS]))
    rep = report(eng, _run_vectors(eng, read, f"validating {eng.name} on the committed corpus"))
    t = rep["totals"]
    return {"profile": eng.profile, "passed": t["pass"], "failed": t["fail"],
            "ran_elsewhere": t["elsewhere"], "not_for_engine": t["skip"],
            "conforming": rep["claim"] is not None}


def _say_decode(summary: dict, out: Path) -> None:
    """The decode's summary in lines."""
    for plane, values in summary["planes"].items():
        parts = [f"{name} {v['shape']} {v['sha256'][:16]}" for name, v in values.items()
                 if name != "refused"]
        click.echo(f"plane {plane}: " + ", ".join(parts))
        if "refused" in values:
            click.echo(f"plane {plane}: latent refused: {values['refused']['code']} at "
                       f"position {values['refused']['at']}")
    for plane, c in (summary["compare"] or {}).items():
        same = [n for n, d in c.items() if d["agree"]]
        click.echo(f"plane {plane} against the reference: " +
                   (f"{', '.join(same)} agree" if same else "nothing agrees"))
        for name, d in c.items():
            if d["agree"]:
                continue
            if "refused_on" in d:
                click.echo(f"  {name}: the latent decode is refused on the {d['refused_on']} "
                           f"side ({d['code']} at position {d['at']})")
                continue
            f = d["first"]
            click.echo(f"  {name} differs first at channel {f['channel']}, position "
                       f"({f['y']}, {f['x']}): engine {f['engine']}, reference "
                       f"{f['reference']} ({f['count']} position"
                       f"{' differs' if f['count'] == 1 else 's differ'})")
    v = summary["validated"]
    if v is not None:
        click.echo(f"engine {summary['engine']}: " + (
            "passes" if v["conforming"] else "does not pass") + " validate on the committed "
            f"corpus for {v['profile']} ({v['passed']} passed, {v['failed']} failed, "
            f"{v['not_for_engine']} not for this engine)")
    click.echo(f"written to {out}")
