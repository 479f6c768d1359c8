"""Engines: what runs a graph's decodes. Each is one module here behind the engine base
(:mod:`.base`), whose ``REGISTRY`` literal is its entry in the registry (:data:`ENGINES`),
read without importing it, so ``--help`` and the unknown-engine error import no engine
module. A third party's engine registers under the entry point group
``waiexport.engines``: its object, called with no arguments, is an engine."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from importlib import import_module, metadata
from pathlib import Path

from ..errors import EngineUnavailable

__all__ = ["Entry", "ENGINES", "engine", "names", "help_text", "plugins", "declared"]

GROUP = "waiexport.engines"


@dataclass(frozen=True)
class Entry:
    """One engine: its name (a ``prefix:<Provider>`` form takes the provider after the
    colon), a line of help, where its class lives, and what it is made with."""

    name: str
    help: str
    where: str
    args: dict = field(default_factory=dict)
    isolated: bool = False  # a native runtime of its own: run it in a worker process
    aborts: bool = False  # its runtime ends the process on an error: a worker unasked

    @property
    def prefix(self) -> str:
        return self.name.split("<")[0] if self.name.endswith(">") else ""


@functools.cache
def declared() -> tuple[Entry, ...]:
    """Every engine module's ``REGISTRY``: a literal of entries, each ``{name, help, cls}`` and
    its ``args``, ``isolated``, ``aborts``, read from the module's source without importing
    it; modules in name order, ``reference`` first. A new engine is a module here and
    nothing else."""
    found = []
    paths = sorted(
        (p for folder in __path__ for p in Path(folder).glob("*.py")),
        key=lambda p: (p.stem != "reference", p.stem),
    )
    for path in paths:
        for d in _registry(path.read_text(encoding="utf-8")):
            found.append(
                Entry(
                    where=f"{__name__}.{path.stem}:{d['cls']}",
                    **{k: v for k, v in d.items() if k != "cls"},
                )
            )
    return tuple(found)


def _registry(source: str) -> tuple:
    """The value of the line ``REGISTRY = …`` in ``source`` and the lines that continue it,
    parsed alone (the whole module's parse took 40 ms of every command that names an
    engine, measured); ``()`` where there is none."""
    start = source.find("\nREGISTRY = ")
    lines = source[start + 1 :].splitlines() if start >= 0 else []
    for end in range(1, len(lines) + 1):
        if not lines[end - 1].rstrip().endswith(")"):
            continue
        try:
            node = ast.parse("\n".join(lines[:end])).body[0]
        except SyntaxError:
            continue
        return ast.literal_eval(node.value)
    return ()


def __getattr__(name: str):
    if name == "ENGINES":  # read on first use: the commands that name no engine read
        return declared()  # no module's source
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def plugins() -> dict:
    """The engines third parties register (entry point group ``waiexport.engines``): name →
    the distribution that provides it. Nothing is imported."""
    out = {}
    for ep in metadata.entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        out[ep.name] = f"plug-in from {dist.name}" if dist else f"plug-in {ep.value}"
    return out


def names() -> list[str]:
    """Every engine name: the built-in ones, then the plug-ins'."""
    return [e.name for e in declared()] + [
        n for n in plugins() if n not in {e.name for e in declared()}
    ]


def help_text() -> str:
    """The ``--engine`` option's help, from the table and the registered plug-ins."""
    built_in = "; ".join(f"{e.name}: {e.help}" for e in declared())
    extra = plugins()
    return built_in + (
        ("; registered plug-ins: " + "; ".join(f"{n} ({d})" for n, d in sorted(extra.items())))
        if extra
        else f"; or an engine registered under the entry point group {GROUP}"
    )


def engine(
    name: str,
    fallback: bool = False,
    isolate: bool | None = None,
    target: str | None = None,
    **limits,
):
    """The engine called ``name`` (:data:`ENGINES`, then the plug-ins). ``fallback`` lets an
    ``ort:<Provider>`` engine place nodes on the CPU provider (each vector then says how many
    went there). With ``isolate``, an engine with a native runtime of its own (every plug-in,
    and those the table marks) runs in a worker process (:class:`.worker.Isolated`, under
    ``limits``: ``time_limit``, ``memory_limit``); without it, in this process, except one
    whose runtime ends the process on an error (tract's panics, on some of its probes too),
    which ``isolate=False`` alone runs here. ``target`` names the target whose models
    it runs, in place of its own (a plug-in's factory then takes it as ``target_name``).
    Raises ``KeyError`` naming every engine for an unknown name, and
    :class:`~..errors.EngineUnavailable` for one that cannot run here."""
    chosen = {} if target is None else {"target_name": target}
    for e in declared():
        if name == e.name and not e.prefix:
            if target is not None and name == "reference":
                raise EngineUnavailable("the reference runs the graph itself, no target's model")
            if e.isolated and (isolate or (isolate is None and e.aborts)):
                return _isolated(name, e.where, {**e.args, **chosen}, limits)
            return _make(e.where, {**e.args, **chosen})
        if e.prefix and name.startswith(e.prefix) and len(name) > len(e.prefix):
            return _make(
                e.where,
                {**e.args, **chosen, "provider": name[len(e.prefix) :], "fallback": fallback},
            )
    for ep in metadata.entry_points(group=GROUP):
        if ep.name == name:
            return _isolated(name, ep.value, chosen, limits) if isolate else ep.load()(**chosen)
    raise KeyError(
        f"unknown engine {name!r}; known: {', '.join(names())}, or one registered "
        f"under the entry point group {GROUP}"
    )


def _isolated(name: str, where: str, args: dict, limits: dict):
    from .worker import Isolated  # the worker's machinery, for an isolated engine alone

    return Isolated(name, where, args, **limits)


def _make(where: str, args: dict):
    module, cls = where.split(":")
    return getattr(import_module(module), cls)(**args)
