"""The second job, :func:`export`: a graph rewritten and exported for a target as a model of
integer tensors only, self-checked against the exact reference before it is written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from waiexport.descriptions import Target
from waiexport.descriptions import target as described
from waiexport.jsonio import report_json
from waiexport.plan import run_plan
from waiexport.refusal import Refusal
from waiexport.targets import engines, exporter
from waiexport.targets.engines.base import Engine
from waiexport.targets.errors import EngineFailure, EngineUnavailable
from waiexport.targets.exporter import Export
from waiexport.targets.format import Format, format_of

from .source import Progress, Source, member_of

__all__ = ["Exported", "SelfCheckFailed", "SizeRefused", "Unwritten", "export"]


class SelfCheckFailed(Exception):
    """The model differs from the reference: ``where`` (``on ENGINE`` or ``at HxW on
    ENGINE``) and the first difference in words."""

    def __init__(self, where: str, difference: str):
        super().__init__(f"self-check {where} failed: {difference}")


class Unwritten(Exception):
    """The model, checked, could not be written as ``output``: ``error`` is the ``OSError``
    (``NotOurs`` for a folder of someone else's files, left as it was)."""

    def __init__(self, output: str, error: OSError):
        super().__init__(f"{output}: {error.strerror or error}")
        self.output, self.error = output, error


class SizeRefused(Exception):
    """The sizes given (or declared) for a static model do not plan: ``refusal`` says where,
    ``sizes`` are they."""

    def __init__(self, refusal: Refusal, sizes: Sequence[tuple[int, int]]):
        super().__init__(str(refusal))
        self.refusal, self.sizes = refusal, sizes


@dataclass(frozen=True)
class Exported:
    """What ``export`` wrote: the report (``export --json``'s object: bytes, metadata, model,
    nodes, rewrites, self_check, target), the rewrites applied in words, and the summary
    lines a person reads."""

    report: dict
    rewrites: tuple
    lines: tuple

    def to_json(self) -> str:
        return report_json(self.report)

    def text(self) -> str:
        return "\n".join([*(f"rewrite: {r}" for r in self.rewrites), *self.lines])


def export(
    source: Source,
    output: str | Path,
    *,
    target: str = "ort-cpu",
    sizes: Sequence[tuple[int, int]] = (),
    progress: Progress | None = None,
    via: str | None = None,
) -> Exported:
    """Check ``source`` (acc32 and the target's subset), rewrite it for ``target``, export it,
    self-check the model against the exact reference on inputs at the ends of the declared
    ranges (on the target's own runtime where its description names one and it is
    installed, else on the format's judge), and write it as ``output`` (a folder for an
    Ethos-U target). ``sizes`` gives each data input's ``(H, W)`` for a static format when
    the graph declares none.

    Parameters
    ----------
    source : Source
        The graph: a path, WHG1 bytes, a graph made in Python, or a loaded member.
    output : str or Path
        Where the model is written (a folder for a target compiled after its format).
    target : str
        The target's name (``waiexport targets list``).
    sizes : sequence of (int, int)
        Each data input's ``(H, W)``, for a static format whose graph declares none.
    progress : callable, optional
        ``progress(label, total)`` → a function told how many steps finished.
    via : str, optional
        For a target compiled after its format (Ethos-U), the format compiled instead of
        its own (``tflite``: its numerics evidence is the model's self-check on TensorFlow
        Lite Micro, whose kernels Ethos-U is designed to reproduce).

    Returns
    -------
    Exported
        The report, the rewrites applied and the summary lines.

    Raises
    ------
    Refusal
        ``source`` refused at load, or outside the target's profile or subset
        (``model_mismatch`` for a graph that does not fit).
    KeyError
        An unknown target, or an unknown format for ``via``.
    EngineUnavailable
        The target's format or runtime is not installed.
    ExportError, NotForEngine
        A node with no exact form on the target, or a model its runtime cannot take.
    ValueError
        For a static format, a count of ``sizes`` other than the graph's data inputs'; a
        ``via`` for a target compiled by nothing.
    SizeRefused
        ``sizes`` (or the declared ones) do not plan.
    SelfCheckFailed
        The model differs from the reference.
    Unwritten
        ``output`` cannot be written (its ``error`` a ``NotOurs`` for a folder of someone
        else's files).
    """
    tgt = described(target) if via is None else described(target).via(via)
    fmt = format_of(tgt)
    fmt.require()
    member = member_of(source)
    stem = Path(source).stem if isinstance(source, (str, Path)) else member.name
    exp = exporter.export(member, tgt, stem)
    rewrites = tuple(
        f"{exp.outcome.changed(c)} {c.op}: {c.rewrite}" for c in exp.outcome.changes if c.applied
    )
    shapes = _static_shapes(exp, sizes) if fmt.static else None
    judge, judged_on, unchecked = _judge(tgt, fmt)
    size, checked = _check_sizes(exp, shapes)
    model = exp.built(shapes)
    probes = (
        _self_check(exp, checked, judge, f"on {judged_on}", progress)
        if judge is not None or fmt.judge
        else 0
    )
    at_size = _at_size(exp, tgt, fmt, size, checked, progress) if probes else None
    try:
        saved = fmt.save(exp, model, Path(output), stem)
    except OSError as e:
        raise Unwritten(str(output), e) from e
    report = {
        **fmt.report(exp, model),
        "bytes": len(model.data),
        "model": saved["model"],
        "rewrites": exp.rewrites,
        "self_check": {
            "bit_exact": True if probes else None,
            "decodes": probes,
            "on": judged_on or None,
            **({"not_on": unchecked} if unchecked else {}),
            **({"size": _hw(checked), "at_model_size": at_size} if at_size is not None else {}),
        },
        "target": tgt.name,
    }
    lines = [
        fmt.summary(exp, model, saved["model"], probes)
        + (f" (on {judged_on})" if tgt.checked_on or fmt.checked_on else "")
    ]
    if unchecked:
        lines.append(f"not self-checked on the target's own runtime: {unchecked}")
    if not probes:
        lines.append(
            f"not self-checked: no runtime here judges {fmt.name.upper()} models "
            "exactly but the target's own"
            + (f" ({tgt.checked_on})" if tgt.checked_on else ", and this target names none")
        )
    if at_size is not None:
        lines.append(
            f"self-checked at {_hw(checked)}, where every node's edges and interior "
            f"occur; at the model's {_hw(size)}: {at_size['said']}"
        )
    report.update(saved.get("report", {}))
    lines += saved.get("lines", [])
    return Exported(report, rewrites, tuple(lines))


def _hw(size: Sequence[int]) -> str:
    return f"{size[0]}x{size[1]}"


def _check_sizes(exp: Export, shapes: list | None) -> tuple:
    """The model's input size and the smaller one its self-check runs at
    (:func:`~waiexport.targets.exporter.check_size`), for a static model whose inputs share
    one size; ``(None, None)`` otherwise."""
    if not shapes or len({tuple(s[1:]) for s in shapes}) != 1:
        return (tuple(shapes[0][1:]),) * 2 if shapes else (None, None)
    size = tuple(shapes[0][1:])
    return size, exporter.check_size(exp.graph, size)


def _self_check(
    exp: Export, size: tuple | None, judge: Engine | None, where: str, progress: Progress | None
) -> int:
    """:func:`~waiexport.targets.exporter.self_check` at ``size``: how many decodes matched;
    raises :class:`SelfCheckFailed`."""
    bar = (lambda n: progress(f"self-check {where.split(',')[0]}", n)) if progress else None
    probes, difference = exporter.self_check(
        exp, sizes=[size] if size else None, engine=judge, progress=bar
    )
    if difference:
        raise SelfCheckFailed(where, difference)
    return probes


def _at_size(
    exp: Export,
    tgt: Target,
    fmt: Format,
    size: tuple | None,
    checked: tuple | None,
    progress: Progress | None,
) -> dict | None:
    """The static model run at its own size too, on the format's engine for that
    (``judge_at_size``, IREE for TOSA) or else the target's own runtime, where installed:
    what it found, in words and counts; a difference there raises :class:`SelfCheckFailed`
    as one at the check size does."""
    if size is None or checked == size:
        return None
    same = (
        "it differs from the checked model only in its shapes and the constants that "
        "follow from them"
    )
    on = fmt.judge_at_size or tgt.checked_on
    if not on:
        return {
            "on": None,
            "said": f"not run (no engine here runs {tgt.name}'s models at this size); {same}",
        }
    try:
        judge = engines.engine(on, isolate=True, target=tgt.model_of or tgt.name)
    except (EngineUnavailable, EngineFailure) as e:  # not here, or failed to start
        return {"on": None, "said": f"not run ({on}: {e}); {same}"}
    probes = _self_check(exp, size, judge, f"at {_hw(size)} on {on}", progress)
    return {"on": on, "decodes": probes, "said": f"{probes} decodes bit-exact on {on}"}


def _judge(tgt: Target, fmt: Format) -> tuple[Engine | None, str, str | None]:
    """The engine that self-checks the export (the target's own runtime, in a worker, where
    its description names one: ``checked_on``), what it runs on in words, and why the
    target's own runtime could not check it (its extra missing), if so."""
    on = tgt.checked_on or fmt.checked_on
    if not on:
        return None, fmt.judge, None
    try:
        judge = engines.engine(on, isolate=True)
    except (EngineUnavailable, EngineFailure) as e:  # not here, or failed to start
        return None, fmt.judge, f"{on}: {e}"
    return judge, f"{on}, {judge.describe()['runs_on']}", None


def _static_shapes(exp: Export, sizes: Sequence[tuple[int, int]]) -> list:
    """Every input's shape for a model whose shapes are static: data inputs from ``sizes``
    or the graph's declared sizes, state inputs as the first data input; sizes that do not
    plan raise :class:`SizeRefused`."""
    g = exp.graph
    data_inputs = [i for i in g.inputs if i.kind == "data"]
    if not sizes and g.declares_sizes:
        sizes = [(i.max_h, i.max_w) for i in data_inputs]
    if len(sizes) != len(data_inputs):
        raise ValueError(f"{len(sizes)} sizes for {len(data_inputs)} data inputs")
    size = iter(sizes)
    shapes = [
        (g.tensor(i.tensor).channels, *(next(size) if i.kind == "data" else sizes[0]))
        for i in g.inputs
    ]
    try:
        run_plan(g, shapes, [s.lo for s in g.scalars])
    except Refusal as r:
        raise SizeRefused(r, sizes) from None
    return shapes
