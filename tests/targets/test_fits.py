"""One meaning of "fits a target": ``rewrite``, ``export``, ``check --target`` and
``validate`` (through the target's engine) give the same answer for every committed example
and every graph of the corpus, for every target in the registry (``export`` and ``validate``
on a sample where each export starts a runtime or a compiler: ``_runs_for``)."""

import pytest
from click.testing import CliRunner

from waiexport.capabilities.lower import lower_set
from waiexport.cli import main
from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import files_under, validate_vector
from waiexport.conformance.vectors import read_vectors
from waiexport.descriptions import TARGETS
from waiexport.probes import probe_inputs
from waiexport.refusal import Refusal
from waiexport.targets.engines import engine
from waiexport.targets.exporter import fit
from waiexport.targets.format import format_of
from waiexport.whg1 import read, write

from _helpers import ROOT, available


def _graphs():
    out = {"tiny_synth": (ROOT / "examples" / "tiny_synth.whg1").read_bytes()}
    for form, src in (
        ("int_synth", ROOT / "examples" / "int_synth.json"),
        ("int_synth", ROOT / "examples" / "int_synth_acc32_one_weight_past.json"),
        ("jpegai", ROOT / "examples" / "jpegai"),
    ):
        out.update({f"{src.stem}:{role}": write(g) for role, g in lower_set(form, src)[0].items()})
    for path in files_under([CORPUS]):
        for v in read_vectors(path):
            if "stage" not in v and v["load"] == "ok" and "acc32" in v["profiles"]:
                out[v["id"]] = v["graph_bytes"]
    return out


GRAPHS = _graphs()


def _runs_for(target: str) -> set:
    """The names of the graphs that ``export`` and ``validate`` run: every graph; for a
    target whose export starts processes per graph (a third-party runtime's worker for its
    self-check, the TOSA reference model's forked decodes, Vela's compile), the examples and
    every eighth corpus graph. ``rewrite`` and ``check`` answer for every graph on every
    target; ``fit`` is the one verdict, and the targets' own tests run the rest (the TOSA
    reference model and IREE every corpus vector, tests/targets/test_iree.py)."""
    t = TARGETS[target]
    return {
        name
        for k, name in enumerate(GRAPHS)
        if not (t.checked_on or t.compiler or format_of(t).forks)
        or ":" in name
        or name == "tiny_synth"
        or k % 8 == 0
    }


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_command_agrees_on_fits(tmp_path, target):
    # each target's engine here; an Ethos-U target has none (its models run on a board)
    available(format_of(TARGETS[target]).require)
    eng = (
        available(lambda: engine(TARGETS[target].engine, isolate=True))
        if TARGETS[target].engine
        else None
    )
    runner = CliRunner()
    runs = _runs_for(target)
    seen = {True: 0, False: 0}
    for name, data in GRAPHS.items():
        try:
            verdict = fit(data, TARGETS[target]).fits
        except Refusal:
            continue
        seen[verdict] += 1
        src = tmp_path / f"{name.replace(':', '_')}.whg1"
        src.write_bytes(data)
        want = 0 if verdict else 1
        r = runner.invoke(
            main, ["rewrite", str(src), "--target", target, "-o", str(tmp_path / "r.whg1")]
        )
        assert r.exit_code == want, (name, "rewrite", r.output)
        r = runner.invoke(main, ["check", str(src), "--target", target])
        assert r.exit_code == want, (name, "check", r.output)
        if name not in runs:
            continue
        sizes = []
        g = read(data)
        probes = probe_inputs(g)
        if format_of(TARGETS[target]).static and not g.declares_sizes and probes:
            sizes = [
                a
                for x, i in zip(probes[0][0], g.inputs)
                if i.kind == "data"
                for a in ("--size", f"{x.shape[1]}x{x.shape[2]}")
            ]
        r = runner.invoke(
            main, ["export", str(src), "--target", target, "-o", str(tmp_path / "m"), *sizes]
        )
        assert r.exit_code == want, (name, "export", r.output)
        if eng is None:
            continue
        v = {
            "id": name,
            "graph_bytes": data,
            "load": "ok",
            "profiles": [eng.profile],
            "decodes": [],
        }
        outcome = validate_vector(eng, "f", v)
        assert (outcome.status == "pass") == verdict, (name, "validate", outcome.reason)
    # every acc64 graph here fits the acc64 fabric; the narrower targets refuse some
    assert seen[True] and (seen[False] or TARGETS[target].profile == "acc64")
