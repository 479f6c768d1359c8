"""Exported models kept on disk (the user cache's ``models`` folder, :mod:`waiexport.caches`),
so an engine that loads a graph exported before, by the same code, for the same target and
the same probe verdict, opens its model without exporting it again: a command pays for the
bounds pass, the rewrites and the model's build once per install, not once per run. The
probes' models are kept beside them, so such a load builds no model at all (and so imports
no onnx). ``WAIEXPORT_MODEL_CACHE=off`` (or ``0``) turns it off.

Only for a format with one model for every shape (ONNX), and only what an engine's load
and a self-check need: the rewritten graph (WHG1), the model, its inputs' and outputs'
types, its count of nodes, the rewrites applied and the export's metadata, each read back
only when its digest matches (else the entry is made again). An export that declines the
graph (``ExportError``: an operator it cannot map, a limit of the target) is kept as its
error, so a later load declines it as before without building a model; a refusal at load
needs no model and is found again. The folder is kept under :data:`LIMIT` bytes, the
least recently used entries going first."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import metadata as dist
from pathlib import Path
from typing import Callable

from waiexport.caches import code_digest, user_cache
from waiexport.graph import Graph
from waiexport.load import remembered
from waiexport.whg1 import read

from .errors import DoesNotFit, ExportError
from .format import Format, Model, format_of

__all__ = ["Stored", "exported", "probe_model", "optimised", "LIMIT"]

MAGIC = b"waiexport model 2\n"
LIMIT = 256 << 20
_WRITTEN = [0]  # bytes this process wrote since its last sweep
#: The errors an export that declines a graph is kept with, by name.
_DECLINED = {e.__name__: e for e in (ExportError, DoesNotFit)}


@dataclass
class Stored:
    """An export read back from the folder: what an engine's load and a self-check read of
    an :class:`~.exporter.Export` (the target, the format, the rewritten graph, the
    metadata, the rewrites applied, the model, the source graph), and the whole export,
    made again when something else is asked of it (a prefix model, to locate a
    difference)."""

    target: object
    format: Format
    graph: Graph
    metadata: dict
    rewrites: list
    _model: Model
    _data: bytes
    _remake: Callable
    _whole: list = field(default_factory=list)

    @property
    def prepared(self):
        """The format's own object of the model (what its ``prepare`` made)."""
        return self._model.native

    @cached_property
    def source(self) -> Graph:
        """The graph exported (:func:`_graph` of its WHG1 file)."""
        return _graph(self._data)

    def built(self, shapes=None) -> Model:
        return self._model

    def whole(self):
        """The export itself, made once when first asked for."""
        if not self._whole:
            self._whole.append(self._remake())
        return self._whole[0]


def exported(data: bytes, target, chosen: dict, make: Callable):
    """``make()``'s export of the WHG1 file ``data`` for ``target`` (with the kernels the
    probes chose, ``chosen``), or the one kept from an earlier run: a :class:`Stored`."""
    fmt = format_of(target)
    folder = _folder()
    if fmt.static or folder is None:
        return make()
    key = _key([target, sorted(chosen.items()), hashlib.sha256(data).hexdigest()])
    path = folder / f"{key}.model"
    kept = _read(path)
    declined = kept[0].get("declined") if kept is not None else None
    if declined in _DECLINED and not kept[1]:
        raise _DECLINED[declined](kept[0]["message"])
    if kept is not None and declined is None and len(kept[1]) == 2:
        head, (rewritten, model) = kept
        graph = _graph(data) if rewritten == data else read(rewritten)
        return Stored(
            target,
            fmt,
            graph,
            head["metadata"],
            head["rewrites"],
            fmt.model_of(model, head["inputs"], head["outputs"], head["nodes"]),
            data,
            make,
        )
    try:
        exp = make()
    except ExportError as e:
        _write(path, {"declined": type(e).__name__, "message": str(e)}, [])
        raise
    built = exp.built()
    _write(
        path,
        {
            "metadata": exp.metadata,
            "rewrites": exp.rewrites,
            "inputs": built.inputs,
            "outputs": built.outputs,
            "nodes": fmt.nodes(built),
        },
        [exp.outcome.data, built.data],
    )
    return exp


def _graph(data: bytes) -> Graph:
    """The graph of the WHG1 file ``data``: the one this process read already (a corpus
    read, another engine's load), shared as a loaded graph is (nothing changes one), else
    read from the file. A kept export's rewritten graph, where no rewrite changed the file,
    is this too."""
    member = remembered(data)
    return member.graph if member is not None else read(data)


def probe_model(fmt: Format, probe) -> Model:
    """``probe``'s model (:mod:`.onnx.probes`) in ``fmt``, or the one kept from an earlier
    run."""
    folder = _folder()
    if folder is None:
        return fmt.model_of(probe.model())
    path = folder / f"{_key([fmt.name, probe.name])}.probe"
    kept = _read(path)
    if kept is not None and len(kept[1]) == 1:
        head, (model,) = kept
        return fmt.model_of(model, head["inputs"], head["outputs"])
    model = fmt.model_of(probe.model())
    _write(path, {"inputs": model.inputs, "outputs": model.outputs}, [model.data])
    return model


def optimised(what: list, opened: Callable[[bytes], object], made: Callable[[str | None], object]):
    """A session of a model in its runtime's offline mode: ``opened(graph)`` of the graph the
    runtime made of the model in an earlier run, kept under the digest of ``what`` (the
    model, the runtime and its version, this CPU); else ``made(path)``, which opens the model
    and has the runtime save the graph it made at ``path``, kept for the next run. A kept
    graph the runtime does not open is made again; a model it opens only without saving its
    graph (``made(None)``, as with the cache off) keeps nothing."""
    folder = _folder()
    if folder is None:
        return made(None)
    path = folder / f"{_key(what)}.graph"
    kept = _read(path)
    if kept is not None and len(kept[1]) == 1:
        with suppress(Exception):  # the runtime's own error types
            return opened(kept[1][0])
    try:
        fd, out = tempfile.mkstemp(dir=folder, prefix=".part-", suffix=".onnx")
        os.close(fd)
    except OSError:
        return made(None)
    try:
        try:
            session = made(out)
        except Exception:  # the runtime's own error types: its error, if any, comes again
            return made(None)
        with suppress(OSError):
            _write(path, {}, [Path(out).read_bytes()])
        return session
    finally:
        with suppress(OSError):
            os.unlink(out)


def _folder() -> Path | None:
    if os.environ.get("WAIEXPORT_MODEL_CACHE", "").lower() in ("off", "0", "false", "no"):
        return None
    return user_cache("models")


def _key(what: list) -> str:
    """An entry's name: the digest of ``what`` it was made from, with the code that made it
    and the onnx that built its model."""
    return hashlib.sha256(
        json.dumps([MAGIC.decode(), code_digest(), _version("onnx"), *map(repr, what)]).encode()
    ).hexdigest()


@cache
def _version(name: str) -> str:
    try:
        return dist.version(name)
    except dist.PackageNotFoundError:
        return ""


def _read(path: Path) -> tuple | None:
    """An entry's head and its parts, or ``None`` where there is none or it does not read
    back whole; a read entry is marked used, for the sweep's order."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        if not raw.startswith(MAGIC):
            return None
        end = raw.index(b"\n", len(MAGIC))
        digest, text = raw[len(MAGIC) : end].split(b" ", 1)
        if hashlib.sha256(text).hexdigest().encode() != digest:
            return None
        head = json.loads(text)
        at, parts = end + 1, []
        for size, digest in head["parts"]:
            part = raw[at : at + size]
            if len(part) != size or hashlib.sha256(part).hexdigest() != digest:
                return None
            parts.append(part)
            at += size
        if at != len(raw):
            return None
    except (ValueError, KeyError, TypeError):
        return None
    with suppress(OSError):
        os.utime(path)
    return head, parts


def _write(path: Path, head: dict, parts: list) -> None:
    """Write an entry under a temporary name and rename it into place; a folder that
    cannot take it keeps nothing, silently (the cache is an optimisation)."""
    text = json.dumps(
        {**head, "parts": [[len(p), hashlib.sha256(p).hexdigest()] for p in parts]}
    ).encode()
    try:
        _sweep(path.parent, sum(map(len, parts)))
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(
                MAGIC
                + hashlib.sha256(text).hexdigest().encode()
                + b" "
                + text
                + b"\n"
                + b"".join(parts)
            )
        os.replace(tmp, path)
    except OSError:  # a full disk: no part left behind
        with suppress(OSError):
            os.unlink(tmp)


def _sweep(folder: Path, adding: int) -> None:
    """At a process's first write and after each :data:`LIMIT` / 8 bytes it writes: remove
    the least recently used entries until the folder, with ``adding`` more bytes, holds at
    most :data:`LIMIT`, and parts of writes that ended an hour ago or more."""
    if _WRITTEN[0] and _WRITTEN[0] < LIMIT // 8:
        _WRITTEN[0] += adding
        return
    _WRITTEN[0] = adding
    entries, now = [], time.time()
    for p in folder.iterdir():
        try:
            s = p.stat()
        except OSError:
            continue
        if p.name.startswith(".part-") and s.st_mtime < now - 3600:
            p.unlink(missing_ok=True)
        elif p.suffix in (".model", ".probe", ".graph"):
            entries.append((s.st_mtime, s.st_size, p))
    held = sum(size for _, size, _ in entries) + adding
    for _, size, p in sorted(entries):
        if held <= LIMIT:
            break
        p.unlink(missing_ok=True)
        held -= size
