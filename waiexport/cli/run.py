"""The ``run`` command: decodes through a graph on the reference or on an engine."""

from __future__ import annotations

import sys

import click

from waiexport.jsonio import BadInput, loads

from .common import engine_named, engine_option, fail, fail_bad_input, load_file, read_file


@click.command("run")
@click.argument("graph")
@click.option(
    "--decode",
    "decode_file",
    required=True,
    help="A §14.1 decode object, or a JSON array of them for a sequence.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"outputs": [...]} or {"refuse": code} per decode, canonical JSON, '
    "with every value: one object for a DECODE.json of one decode, an array "
    "for a sequence.",
)
@click.option(
    "--values",
    "values",
    is_flag=True,
    help="Print every output's values too, channel by channel (--json always gives them).",
)
@click.option(
    "--literal",
    is_flag=True,
    help="Run the literal implementation (scalar loops; slow, small inputs).",
)
@engine_option(
    "What runs the decodes (the host loads the graph against the engine's profile and subset)."
)
@click.option(
    "--target",
    "target_name",
    default=None,
    help="The target whose model the engine runs (waiexport targets list), in place "
    "of its own: --engine openvino-cpu --target ort-cpu runs ort-cpu's model "
    "on OpenVINO.",
)
@click.option(
    "--capability",
    default=None,
    help="Report refusals in this capability's codes (§4): wai.neural.int_synth "
    "reports payload_malformed for every one.",
)
def run(graph, decode_file, as_json, values, literal, engine_name, target_name, capability):
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
    is refused at load or does not fit the engine, or the engine declines a decode (one
    does-not-fit line naming the node), the engine fails (crashes, passes its time limit,
    reports an error of its own), or the input is malformed.
    Example: waiexport run examples/tiny_synth.whg1 --decode examples/tiny_synth_decode.json
    --engine ort-cpu
    """
    from waiexport.jobs.running import AtDecode
    from waiexport.jobs.running import run as ran
    from waiexport.reference import decode
    from waiexport.targets.engines.base import Loaded
    from waiexport.targets.errors import EngineFailure
    from waiexport.targets.outputs import by_name

    eng = engine_named(engine_name, target=target_name)
    from waiexport.codes import CAPABILITY_CODES

    if capability is not None and capability not in CAPABILITY_CODES:
        fail(
            "--capability",
            "usage",
            "-",
            f"unknown capability {capability!r}; known: " + ", ".join(CAPABILITY_CODES),
        )
    _, loaded = load_file(graph, as_json, eng.load, capability)
    if literal:
        loaded = Loaded(
            loaded.graph, lambda i, s: by_name(decode(loaded.graph, i, s, literal=True))
        )
    try:
        doc = loads(read_file(decode_file))
    except ValueError as e:
        fail(decode_file, "bad-json", "-", f"not JSON: {str(e)[:200]}")
    try:
        done = ran(loaded, doc, capability=capability)
    except BadInput as e:
        fail_bad_input(decode_file, "bad-decode", e)
    except AtDecode as e:
        if isinstance(e.error, EngineFailure):
            fail(f"--engine {eng.name}", "engine-failure", f"decode {e.index}", str(e.error))
        fail(graph, "does-not-fit", f"decode {e.index}", str(e.error))  # as validate counts it
    results = done.results
    if as_json:
        click.echo(done.to_json())
    else:
        for k, r in enumerate(results):
            if "refuse" in r:
                click.echo(f"decode {k}: refused, {r['why']}")
                continue
            parts = [
                f"out{j} {list(o.shape)} in [{o.min()}, {o.max()}]"
                if o.size
                else f"out{j} {list(o.shape)}"
                for j, o in enumerate(r["outputs"])
            ]
            click.echo(f"decode {k}: " + "; ".join(parts))
            for j, o in enumerate(r["outputs"]) if values else ():
                for c, plane in enumerate(o):
                    click.echo(f"  out{j} channel {c}:")
                    click.echo("\n".join("    " + " ".join(map(str, row)) for row in plane))
    sys.exit(0 if done.ok else 1)


command = run
