""":func:`run`: decodes through a graph, as one sequence (§10.2), on the exact reference or on
an engine's model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from waiexport.codes import reported_code
from waiexport.files import READ_LIMIT, read_bounded
from waiexport.jsonio import BadInput, loads, parse_decode, report_json, tensor_json
from waiexport.refusal import Refusal
from waiexport.targets import engines
from waiexport.targets.engines.base import Loaded
from waiexport.targets.errors import EngineFailure, ExportError, NotForEngine

from .source import Source, data_of

__all__ = ["Ran", "AtDecode", "run"]


class AtDecode(Exception):
    """Decode ``index`` ended in ``error``: the engine declined it (``NotForEngine``,
    ``ExportError``) or failed (``EngineFailure``)."""

    def __init__(self, index: int, error: Exception):
        super().__init__(f"decode {index}: {error}")
        self.index, self.error = index, error


@dataclass(frozen=True)
class Ran:
    """Each decode's result in order: ``{"outputs": [array, ...]}`` or ``{"refuse": code,
    "why": words}``; ``one`` when a single decode was given (not a sequence)."""

    results: tuple
    one: bool = False

    @property
    def ok(self) -> bool:
        """Whether every decode completed."""
        return not any("refuse" in r for r in self.results)

    def to_json(self) -> str:
        """``run --json``: ``{"outputs": [...]}`` or ``{"refuse": code}`` per decode, one
        object for a single decode, an array for a sequence."""
        out = [
            {"outputs": [tensor_json(o) for o in r["outputs"]]}
            if "outputs" in r
            else {"refuse": r["refuse"]}
            for r in self.results
        ]
        return report_json(out[0] if self.one else out)


def run(
    source: Source | Loaded,
    decodes: Sequence | dict | str | Path,
    *,
    engine: str = "reference",
    target: str | None = None,
    capability: str | None = None,
) -> Ran:
    """Run ``decodes`` (a DECODE.json path, a §14.1 decode object, a list of them for a
    sequence, or ``(inputs, scalars)`` pairs) as one sequence through ``source`` (a graph as
    :mod:`.source` takes it, loaded by ``engine`` running ``target``'s models where given; or
    an engine's loaded graph), refusals reported in ``capability``'s codes where given.

    Parameters
    ----------
    source : Source or Loaded
        The graph, or an engine's load of it.
    decodes : sequence, dict, str or Path
        The decodes of one sequence.
    engine, target : str
        The engine's name, and the target whose models it runs (its own by default).
    capability : str, optional
        The capability whose refusal codes the report uses.

    Returns
    -------
    Ran
        Each decode's outputs or refusal code.

    Raises
    ------
    Refusal
        ``source`` refused at load against the engine's profile and subset.
    KeyError
        An unknown engine or target.
    EngineUnavailable, NotForEngine, ExportError, EngineFailure
        The engine is not installed, does not take the graph, or failed loading it.
    ValueError
        A DECODE.json that is not JSON.
    BadInput
        A decode that is not one (its index named).
    AtDecode
        The engine declined or failed a decode.
    """
    loaded = source if isinstance(source, Loaded) else _loaded(source, engine, target)
    read = (
        loads(read_bounded(Path(decodes), READ_LIMIT))
        if isinstance(decodes, (str, Path))
        else decodes
    )
    g = loaded.graph
    one = isinstance(read, dict)
    given = [read] if isinstance(read, dict) else list(read)
    if not given:
        raise BadInput("an empty array: nothing to run")
    n_data = sum(1 for i in g.inputs if i.kind == "data")
    parsed = [
        d if isinstance(d, tuple) else parse_decode(d, n_data, len(g.scalars), f"decode {k}")
        for k, d in enumerate(given)
    ]
    seq, results = loaded.sequence(), list[dict]()
    for k, (inputs, scalars) in enumerate(parsed):
        try:
            results.append({"outputs": seq.step(inputs, scalars)})
        except (EngineFailure, ExportError, NotForEngine) as e:
            raise AtDecode(k, e) from None
        except Refusal as r:
            code = reported_code(capability, r.code)
            results.append({"refuse": code, "why": f"{code}: {r.where}: {r.detail}"})
    return Ran(tuple(results), one)


def _loaded(source: Source, engine: str, target: str | None) -> Loaded:
    """``source`` loaded by the engine called ``engine``."""
    return engines.engine(engine, isolate=True, target=target).load(data_of(source))
