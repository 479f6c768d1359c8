"""The ``export`` command, the second job: a model of integer tensors only, for a target,
self-checked."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from waiexport.refusal import Refusal

from .common import fail, load_file, progress, size_of, target_named, writable, written


@click.command("export")
@click.argument("graph")
@click.option(
    "--target",
    "target_name",
    default="ort-cpu",
    show_default=True,
    help="A target (waiexport targets list): ort-cpu, npu-int8 and the runtime "
    "targets openvino-cpu, tvm-llvm and tract write ONNX, tosa writes a TOSA "
    "1.0 flatbuffer, the Ethos-U targets Vela's tflite.",
)
@click.option(
    "-o",
    "--output",
    required=True,
    help="ONNX and tosa targets: the model file to write (a TOSA model gets its "
    "provenance beside it in OUTPUT.json). Ethos-U targets: a folder, for "
    "GRAPH.tosa, its provenance, and Vela's GRAPH_vela.tflite and summary.",
)
@click.option(
    "--size",
    "sizes",
    multiple=True,
    callback=lambda ctx, param, given: [size_of(s) for s in given],
    help="HxW of each data input, for a TOSA model (TOSA shapes are static) when "
    "the graph declares no sizes.",
)
@click.option(
    "--via",
    metavar="FORMAT",
    help="For an Ethos-U target: compile FORMAT's model with Vela instead of TOSA's (tflite: "
    "self-checked on TensorFlow Lite Micro, whose kernels Ethos-U is designed to reproduce).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {bytes, metadata, model, nodes, rewrites, self_check, target} as "
    "canonical JSON when written.",
)
def export(graph, target_name, output, sizes, via, as_json):
    """Export GRAPH to a model of integer tensors only, for a target.

    check (acc32 and wai-ops/1-npu) → rewrite for the target → export → a self-check of the
    model against the exact reference, on inputs at the ends of the declared ranges (on
    onnxruntime for ONNX, on the TOSA reference model for TOSA; for a runtime target, on that
    runtime, when its extra is installed, else on onnxruntime, saying so). The model names the
    SHA-256 of GRAPH, of the rewritten graph and of the certificate, the target and this tool's
    version (ONNX metadata; for TOSA, OUTPUT.json).

    \b
    Exit status: 0 when the model is written and matches the reference; 1 when the graph
    does not fit, cannot be mapped, or the self-check differs; 2 when GRAPH is refused at load.
    Example: waiexport export examples/tiny_synth.whg1 --target tosa --size 8x8 -o /tmp/tiny.tosa
    """
    from waiexport.load import read_member
    from waiexport.targets.errors import EngineUnavailable
    from waiexport.targets.format import format_of

    tgt = target_named(target_name)
    if via is not None:
        try:
            tgt = tgt.via(via)
            fmt = format_of(tgt)
        except (ValueError, KeyError) as e:
            fail(
                "--via",
                "usage",
                "-",
                e.args[0]
                if isinstance(e, ValueError)
                else f"unknown format {via!r}: one of the formats a target is compiled after",
            )
    fmt = format_of(tgt)
    try:
        fmt.require()
    except EngineUnavailable as e:
        fail(f"--target {tgt.name}", "unavailable", "-", str(e))
    _options_fit(tgt, fmt, output, sizes)
    writable(output, folder=fmt.writes_folder)
    _, member = load_file(graph, loader=lambda d: read_member(d, Path(graph).stem))
    if fmt.static:
        _sizes_given(graph, member.graph, fmt, len(sizes))
    try:
        done = _export(graph, tgt, member, output, sizes, via)
    except EngineUnavailable as e:
        fail(graph, "unavailable", tgt.name, str(e))
    click.echo(done.to_json() if as_json else done.text())


def _export(graph: str, tgt, member, output: str, sizes, via=None):
    """:func:`waiexport.jobs.export` of the loaded GRAPH, with progress bars; what it raises
    ends in one line."""
    from waiexport.jobs.exporting import SelfCheckFailed, SizeRefused, Unwritten, export
    from waiexport.targets.errors import CompileError, ExportError, NotForEngine

    try:
        with contextlib.ExitStack() as stack:
            return export(
                member,
                output,
                target=tgt.name,
                sizes=sizes,
                via=via,
                progress=lambda label, n: stack.enter_context(progress(n, label)).update,
            )
    except Refusal as r:
        click.echo(f"{graph}: does-not-fit: {r.where}: {r.code}: {r.detail}", err=True)
        sys.exit(1 if r.code == "model_mismatch" else 2)
    except (ExportError, NotForEngine) as e:  # no exact form, or a model its runtime refuses
        click.echo(f"{graph}: {_why(tgt, e)}", err=True)
        sys.exit(1)
    except SelfCheckFailed as e:
        click.echo(str(e), err=True)
        sys.exit(1)
    except SizeRefused as e:
        fail(
            graph,
            e.refusal.code,
            f"--size {' '.join(f'{h}x{w}' for h, w in e.sizes)}: {e.refusal.where}",
            e.refusal.detail,
        )
    except CompileError as e:
        fail(output, e.compiler, tgt.name, f"{e.compiler.capitalize()} refused it: {e}")
    except Unwritten as e:  # the one-line error written() gives for the output
        with written(output):
            raise e.error from None


def _why(tgt, e) -> str:
    """An export error in words: a graph that does not fit says so; anything else cannot be
    exported."""
    from waiexport.targets.errors import DoesNotFit

    return (
        str(e)
        if isinstance(e, DoesNotFit) and str(e).startswith("does not fit")
        else f"cannot export for {tgt.name}: {e}"
    )


def _options_fit(tgt, fmt, output: str, sizes) -> None:
    """End in one line, before any work, where an option does not fit the target's format:
    ``--size`` for a format that takes any size, or ``-o`` with another format's suffix."""
    from waiexport.targets.format import FORMATS, format_named

    if sizes and not fmt.static:
        fail(
            "--size",
            "usage",
            "-",
            f"{tgt.name}'s {fmt.name.upper()} models take any input "
            "size; --size is for the formats whose shapes are static (tosa, Ethos-U)",
        )
    suffix = Path(output).suffix.lower()
    files: dict = {}  # a suffix → the formats that write it (ONNX and QDQ both .onnx)
    for f in map(format_named, FORMATS):
        if not f.writes_folder:
            files.setdefault(f.suffix, []).append(f.name)
    if not fmt.writes_folder and fmt.name not in files.get(suffix, [fmt.name]):
        fail(
            output,
            "usage",
            "-o",
            f"target {tgt.name} writes {fmt.name.upper()} "
            f"({fmt.suffix}), not {' or '.join(files[suffix]).upper()}",
        )


def _sizes_given(graph: str, g, fmt, given: int) -> None:
    """End in one line where a static format's export has too few or too many ``--size``
    values for the graph's data inputs."""
    n = sum(1 for i in g.inputs if i.kind == "data")
    if given == 0 and g.declares_sizes:
        return
    if given != n:
        fail(
            graph,
            "needs-size",
            "--size",
            (
                f"the graph declares no input sizes and {fmt.name.upper()} shapes are static: "
                f"give --size HxW for each of its {n} data inputs"
                if not given
                else f"{given} --size values for its {n} data input{'s' if n != 1 else ''}"
            ),
        )


command = export
