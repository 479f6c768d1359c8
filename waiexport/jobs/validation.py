"""The third job, :func:`validate`: an engine against the conformance vectors (§14), bit for
bit, refusals included, with the report that says what ran and the claim it supports."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import NO_CLAIM, files_under, read_all, render, report
from waiexport.conformance.validate import validate as run_all
from waiexport.descriptions import target as described
from waiexport.jsonio import report_json
from waiexport.targets import engines
from waiexport.targets.engines.base import Engine

__all__ = ["Validated", "NothingToValidate", "validate", "vectors"]


class NothingToValidate(ValueError):
    """The paths hold no vector."""


@dataclass(frozen=True)
class Validated:
    """The report (``validate --json``'s object: claim, engine, files, totals, vectors) and
    each vector's outcome."""

    report: dict
    outcomes: tuple

    @property
    def ran(self) -> bool:
        """Whether any vector ran on the engine (not all were not for it, or declined)."""
        return any(o.status not in ("skip", "declined") for o in self.outcomes)

    @property
    def ok(self) -> bool:
        """Whether the report supports its claim: nothing failed, crashed, timed out or ran
        elsewhere."""
        return not any(o.status in NO_CLAIM for o in self.outcomes)

    def to_json(self) -> str:
        """The report as canonical JSON (§8.5)."""
        return report_json(self.report)

    def text(self) -> str:
        """The report as a person reads it."""
        return render(self.report)


def vectors(paths: Sequence[str | Path] = ()) -> list:
    """Every vector of ``paths`` (``.jsonl`` files or folders of them; default the committed
    corpus), each file read and checked before any runs: ``[(file, [vector, ...])]``.

    Parameters
    ----------
    paths : sequence of str or Path
        ``.jsonl`` files or folders of them; the committed corpus where empty.

    Returns
    -------
    list
        ``[(file, [vector, ...])]``.

    Raises
    ------
    FileNotFoundError
        A path that is not there.
    BadInput
        A line of a vector file that is not a vector (its file and line named).
    NothingToValidate
        No vector in the paths.
    """
    for p in paths:
        if not Path(p).exists():
            raise FileNotFoundError(2, "no such vector file or folder", str(p))
    read = read_all(files_under([Path(p) for p in paths] or [CORPUS]))
    if not sum(len(v) for _, v in read):
        raise NothingToValidate(
            f"no vector in {len(read)} .jsonl file{'' if len(read) == 1 else 's'}"
        )
    return read


def validate(
    paths: Sequence[str | Path] | list = (),
    *,
    engine: str | Engine = "reference",
    target: str | None = None,
    time_limit: float = 300.0,
    memory_limit: float = 8.0,
    allow_fallback: bool = False,
    locate: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Validated:
    """Run every vector of ``paths`` (as :func:`vectors` reads them, or what it returned) on
    ``engine`` (a name, or an engine already made), running ``target``'s models where given;
    ``time_limit`` seconds a decode and ``memory_limit`` GiB a worker may take;
    ``progress(n)`` is told as vectors finish.

    Parameters
    ----------
    paths : sequence of str or Path, or what :func:`vectors` returned
        The vectors.
    engine : str or Engine
        The engine, by name or made.
    target : str, optional
        The target whose models the engine runs (its own by default).
    time_limit, memory_limit : float
        Seconds a decode and GiB a worker may take.
    allow_fallback : bool
        Let an onnxruntime provider fall back to the CPU's.
    locate : bool
        Locate each difference to its first operator.
    progress : callable, optional
        Told after each vector.

    Returns
    -------
    Validated
        Each vector's outcome, the report and its claim.

    Raises
    ------
    KeyError
        An unknown engine or target.
    EngineUnavailable
        The engine's runtime is not installed.
    FileNotFoundError, BadInput, NothingToValidate
        As :func:`vectors`.
    """
    if isinstance(engine, str):
        if target is not None:
            described(target)
        engine = engines.engine(
            engine,
            fallback=allow_fallback,
            isolate=True,
            target=target,
            time_limit=time_limit,
            memory_limit=int(memory_limit * 2**30),
        )
    read = paths if paths and isinstance(paths[0], tuple) else vectors(paths)
    outcomes = run_all(engine, read, progress=progress, locate=locate)
    return Validated(report(engine, outcomes), tuple(outcomes))
