"""The ``export`` command, the second job: a model of integer tensors only, for a target, self-checked."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from waiexport.jsonio import report_json
from waiexport.refusal import Refusal

from .common import fail, writable, written, load_file, progress, target_named, size_of


@click.command("export")
@click.argument("graph")
@click.option("--target", "target_name", default="ort-cpu", show_default=True,
              help="A target (waiexport targets list): ort-cpu, npu-int8 and the runtime "
                   "targets openvino-cpu, tvm-llvm and tract write ONNX, tosa writes a TOSA "
                   "1.0 flatbuffer, the Ethos-U targets Vela's tflite.")
@click.option("-o", "--output", required=True,
              help="ONNX and tosa targets: the model file to write (a TOSA model gets its "
                   "provenance beside it in OUTPUT.json). Ethos-U targets: a folder, for "
                   "GRAPH.tosa, its provenance, and Vela's GRAPH_vela.tflite and summary.")
@click.option("--size", "sizes", multiple=True,
              callback=lambda ctx, param, given: [size_of(s) for s in given],
              help="HxW of each data input, for a TOSA model (TOSA shapes are static) when "
                   "the graph declares no sizes.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {bytes, metadata, model, nodes, rewrites, self_check, target} as "
                   "canonical JSON when written.")
def export(graph, target_name, output, sizes, as_json):
    """Export GRAPH to a model of integer tensors only, for a target.

    check (acc32 and wai-ops/1-npu) → rewrite for the target → export → a self-check of the
    model against the exact reference, on inputs at the ends of the declared ranges (on
    onnxruntime for ONNX, on the TOSA reference model for TOSA; for a runtime target, on that
    runtime, when its extra is installed, else on onnxruntime, saying so). The model names the SHA-256
    of GRAPH, of the rewritten graph and of the certificate, the target and this tool's
    version (ONNX metadata; for TOSA, OUTPUT.json).

    \b
    Exit status: 0 when the model is written and matches the reference; 1 when the graph
    does not fit, cannot be mapped, or the self-check differs; 2 when GRAPH is refused at load.
    Example: waiexport export examples/tiny_synth.whg1 --target tosa --size 8x8 -o /tmp/tiny.tosa
    """
    from waiexport.targets.errors import EngineUnavailable
    from waiexport.load import read_member
    from waiexport.targets.format import format_of

    tgt = target_named(target_name)
    fmt = format_of(tgt)
    try:
        fmt.require()
    except EngineUnavailable as e:
        fail(f"--target {tgt.name}", "unavailable", "-", str(e))
    _options_fit(tgt, fmt, output, sizes)
    writable(output, folder=fmt.writes_folder)
    _, member = load_file(graph, loader=read_member)
    if fmt.static:
        _sizes_given(graph, member.graph, fmt, len(sizes))
    try:
        _export(graph, tgt, member, output, sizes, as_json)
    except EngineUnavailable as e:
        fail(graph, "unavailable", tgt.name, str(e))


def _export(graph: str, tgt, member, output: str, sizes, as_json: bool) -> None:
    """The body of ``export``, once GRAPH has loaded: exits."""
    from waiexport.targets.errors import ExportError, NotForEngine
    from waiexport.targets.exporter import export as export_graph
    try:
        exp = export_graph(member, tgt, Path(graph).stem)
    except Refusal as r:
        click.echo(f"{graph}: does-not-fit: {r.where}: {r.code}: {r.detail}", err=True)
        sys.exit(1 if r.code == "model_mismatch" else 2)
    except ExportError as e:
        click.echo(f"{graph}: {_why(tgt, e)}", err=True)
        sys.exit(1)
    rewrites = [f"{exp.outcome.changed(c)} {c.op}: {c.rewrite}" for c in exp.outcome.changes
                if c.applied]
    if not as_json:
        for line in rewrites:
            click.echo(f"rewrite: {line}")
    fmt = exp.format
    shapes = _static_shapes(graph, exp, sizes) if fmt.static else None
    judge, judged_on, unchecked = _judge(tgt, fmt)
    size, checked = _check_sizes(exp, shapes)
    try:
        model = exp.built(shapes)
        probes, difference = _self_check(exp, checked, judge, judged_on)
        if difference:
            click.echo(f"self-check on {judged_on} failed: {difference}", err=True)
            sys.exit(1)
        at_size = _at_size(exp, tgt, fmt, size, checked)
    except (ExportError, NotForEngine) as e:    # the target's runtime cannot take the model
        click.echo(f"{graph}: {_why(tgt, e)}", err=True)
        sys.exit(1)
    try:
        with written(output):
            saved = fmt.save(exp, model, Path(output), Path(graph).stem)
    except _vela_error() as e:
        fail(output, "vela", tgt.vela, f"Vela refused it: {e}")
    report = {**fmt.report(exp, model), "bytes": len(model.data),
              "model": saved["model"],
              "rewrites": exp.rewrites,
              "self_check": {"bit_exact": True, "decodes": probes, "on": judged_on,
                             **({"not_on": unchecked} if unchecked else {}),
                             **({"size": _hw(checked), "at_model_size": at_size}
                                if checked != size else {})},
              "target": tgt.name}
    lines = [fmt.summary(exp, model, saved["model"], probes)
             + (f" (on {judged_on})" if tgt.checked_on else "")]
    if unchecked:
        lines.append(f"not self-checked on the target's own runtime: {unchecked}")
    if checked != size:
        lines.append(f"self-checked at {_hw(checked)}, where every node's edges and interior "
                     f"occur; at the model's {_hw(size)}: {at_size['said']}")
    if "vela" in saved:
        vela = saved["vela"]
        report["vela"] = vela.as_dict()
        lines += [f"every node fits {tgt.name} (its limits: waiexport targets show {tgt.name})",
                  *vela.lines()]
        if vela.cpu_ops:
            lines.append(f"  {vela.cpu_ops} operators are not on the NPU")
    click.echo(report_json(report) if as_json else "\n".join(lines))
    sys.exit(0)


def _hw(size) -> str:
    return f"{size[0]}x{size[1]}"


def _check_sizes(exp, shapes) -> tuple:
    """The model's input size and the smaller one its self-check runs at
    (:func:`~waiexport.targets.exporter.check_size`), for a static model whose inputs share
    one size; ``(None, None)`` otherwise."""
    from waiexport.targets.exporter import check_size
    if not shapes or len({tuple(s[1:]) for s in shapes}) != 1:
        return (tuple(shapes[0][1:]),) * 2 if shapes else (None, None)
    size = tuple(shapes[0][1:])
    return size, check_size(exp.graph, size)


def _self_check(exp, size, judge, on: str, label: str = "self-check on"):
    """:func:`~waiexport.targets.exporter.self_check` at ``size``, with a progress bar."""
    from waiexport.targets.exporter import self_check
    with contextlib.ExitStack() as stack:
        def bar(n):
            return stack.enter_context(progress(n, f"{label} {on.split(',')[0]}")).update
        return self_check(exp, sizes=[size] if size else None, engine=judge, progress=bar)


def _at_size(exp, tgt, fmt, size, checked) -> dict | None:
    """The static model run at its own size too, on the format's engine for that
    (``judge_at_size``, IREE for TOSA) where it is installed: what it found, in words and
    counts. A difference there ends the export as one at the check size does."""
    from waiexport.targets.engines import engine
    from waiexport.targets.errors import EngineFailure, EngineUnavailable
    if checked == size:
        return None
    same = ("it differs from the checked model only in its shapes and the constants that "
            "follow from them")
    if not fmt.judge_at_size:
        return {"on": None,
                "said": f"not run (no engine here runs {tgt.name}'s models at this size); {same}"}
    try:
        judge = engine(fmt.judge_at_size, isolate=True, target=tgt.name)
    except (EngineUnavailable, EngineFailure) as e:     # not here, or failed to start
        return {"on": None, "said": f"not run ({fmt.judge_at_size}: {e}); {same}"}
    probes, difference = _self_check(exp, size, judge, fmt.judge_at_size, "at its size on")
    if difference:
        click.echo(f"self-check at {_hw(size)} on {fmt.judge_at_size} failed: {difference}",
                   err=True)
        sys.exit(1)
    return {"on": fmt.judge_at_size, "decodes": probes,
            "said": f"{probes} decodes bit-exact on {fmt.judge_at_size}"}


def _why(tgt, e) -> str:
    """An export error in words: a graph that does not fit says so; anything else cannot be
    exported."""
    from waiexport.targets.errors import DoesNotFit
    return str(e) if isinstance(e, DoesNotFit) and str(e).startswith("does not fit") else \
        f"cannot export for {tgt.name}: {e}"


def _judge(tgt, fmt):
    """The engine that self-checks the export (the target's own runtime, in a worker, where
    its description names one: ``checked_on``), what it runs on in words, and why the
    target's own runtime could not check it (its extra missing), if so."""
    from waiexport.targets.engines import engine
    from waiexport.targets.errors import EngineFailure, EngineUnavailable
    if not tgt.checked_on:
        return None, fmt.judge, None
    try:
        judge = engine(tgt.checked_on, isolate=True)
    except (EngineUnavailable, EngineFailure) as e:     # not here, or failed to start
        return None, fmt.judge, f"{tgt.checked_on}: {e}"
    return judge, f"{tgt.checked_on}, {judge.describe()['runs_on']}", None


def _vela_error():
    """Vela's error type, where Vela's compile is importable (a target that has none never
    raises it)."""
    from waiexport.targets.vela.compile import VelaError
    return VelaError


def _options_fit(tgt, fmt, output: str, sizes) -> None:
    """End in one line, before any work, where an option does not fit the target's format:
    ``--size`` for a format that takes any size, or ``-o`` with another format's suffix."""
    from waiexport.targets.format import FORMATS, format_named
    if sizes and not fmt.static:
        fail("--size", "usage", "-", f"{tgt.name}'s {fmt.name.upper()} models take any input "
             "size; --size is for the formats whose shapes are static (tosa, Ethos-U)")
    suffix = Path(output).suffix.lower()
    files = {f.suffix: f.name for f in map(format_named, FORMATS) if not f.writes_folder}
    if not fmt.writes_folder and files.get(suffix, fmt.name) != fmt.name:
        fail(output, "usage", "-o", f"target {tgt.name} writes {fmt.name.upper()} "
             f"({fmt.suffix}), not {files[suffix].upper()}")


def _sizes_given(graph: str, g, fmt, given: int) -> None:
    """End in one line where a static format's export has too few or too many ``--size``
    values for the graph's data inputs."""
    n = sum(1 for i in g.inputs if i.kind == "data")
    if given == 0 and g.declares_sizes:
        return
    if given != n:
        fail(graph, "needs-size", "--size", (
            f"the graph declares no input sizes and {fmt.name.upper()} shapes are static: "
            f"give --size HxW for each of its {n} data inputs" if not given else
            f"{given} --size values for its {n} data input{'s' if n != 1 else ''}"))


def _static_shapes(graph: str, exp, sizes: list) -> list:
    """Every input's shape for a model whose shapes are static: data inputs from ``--size``
    (their count checked by :func:`_sizes_given`) or the graph's declared sizes, state
    inputs as the first data input; an unplannable size ends in one line."""
    from waiexport.plan import run_plan
    g = exp.graph
    data_inputs = [i for i in g.inputs if i.kind == "data"]
    if not sizes and g.declares_sizes:
        sizes = [(i.max_h, i.max_w) for i in data_inputs]
    size = iter(sizes)
    shapes = [(g.tensor(i.tensor).channels, *(next(size) if i.kind == "data" else sizes[0]))
              for i in g.inputs]
    try:
        run_plan(g, shapes, [s.lo for s in g.scalars])
    except Refusal as r:
        fail(graph, r.code, f"--size {' '.join(f'{h}x{w}' for h, w in sizes)}: {r.where}",
             r.detail)
    return shapes


command = export
