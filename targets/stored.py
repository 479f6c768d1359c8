"""Exported models kept on disk (the user cache's ``models`` folder, :mod:`waiexport.caches`),
so an engine that loads a graph exported before, by the same code, for the same target and
the same probe verdict, opens its model without exporting it again: a command pays for the
bounds pass, the rewrites and the model's build once per install, not once per run.
``WAIEXPORT_MODEL_CACHE=off`` (or ``0``) turns it off.

Only a successful export is kept (a refusal or a graph that does not fit is found again),
only for a format with one model for every shape (ONNX), and only what an engine's load
needs: the rewritten graph (WHG1), the model and the export's metadata, each read back only
when its length and digest match (else the entry is made again). The folder is kept under
:data:`LIMIT` bytes, the least recently used entries going first."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata as dist
from pathlib import Path
from typing import Callable

from waiexport.caches import code_digest, user_cache
from waiexport.graph import Graph
from waiexport.whg1 import read

from .format import Format, Model, format_of

__all__ = ["Stored", "exported", "LIMIT"]

MAGIC = b"waiexport model 1\n"
LIMIT = 256 << 20
_WRITTEN = [0]    # bytes this process wrote since its last sweep


@dataclass
class Stored:
    """An export read back from the folder: what an engine's load reads of an
    :class:`~.exporter.Export` (the target, the format, the rewritten graph, the metadata,
    the model), and the whole export, made again when something else is asked of it (a
    prefix model, to locate a difference)."""

    target: object
    format: Format
    graph: Graph
    metadata: dict
    _model: Model
    _remake: Callable
    _whole: list = field(default_factory=list)

    @property
    def model(self):
        """The format's own object of the model (an ``onnx.ModelProto``)."""
        return self._model.native

    def built(self, shapes=None) -> Model:
        return self._model

    def whole(self):
        """The export itself, made once when first asked for."""
        if not self._whole:
            self._whole.append(self._remake())
        return self._whole[0]


def exported(data: bytes, target, u8s8: bool | None, make: Callable):
    """``make()``'s export of the WHG1 file ``data`` for ``target`` (with the probe's verdict
    ``u8s8``), or the one kept from an earlier run: a :class:`Stored`."""
    fmt = format_of(target)
    folder = _folder()
    if fmt.static or folder is None:
        return make()
    path = folder / f"{_key(data, target, u8s8)}.model"
    kept = _read(path)
    if kept is not None:
        meta, rewritten, model = kept
        with suppress(OSError):      # its use, for the sweep's order
            os.utime(path)
        return Stored(target, fmt, read(rewritten), meta, fmt.model_of(model), make)
    exp = make()
    _write(path, exp.metadata, exp.outcome.data, exp.built().data)
    return exp


def _folder() -> Path | None:
    if os.environ.get("WAIEXPORT_MODEL_CACHE", "").lower() in ("off", "0", "false", "no"):
        return None
    return user_cache("models")


def _key(data: bytes, target, u8s8) -> str:
    what = json.dumps([MAGIC.decode(), code_digest(), repr(target), u8s8,
                       _version("onnx"), hashlib.sha256(data).hexdigest()])
    return hashlib.sha256(what.encode()).hexdigest()


@cache
def _version(name: str) -> str:
    try:
        return dist.version(name)
    except dist.PackageNotFoundError:
        return ""


def _read(path: Path) -> tuple | None:
    """An entry's metadata, rewritten graph and model, or ``None`` where there is none or it
    does not read back whole."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        if not raw.startswith(MAGIC):
            return None
        end = raw.index(b"\n", len(MAGIC))
        head = json.loads(raw[len(MAGIC):end])
        at, parts = end + 1, []
        for size, digest in (head["rewritten"], head["model"]):
            part = raw[at:at + size]
            if len(part) != size or hashlib.sha256(part).hexdigest() != digest:
                return None
            parts.append(part)
            at += size
        return (head["metadata"], *parts) if at == len(raw) else None
    except (ValueError, KeyError, TypeError):
        return None


def _write(path: Path, meta: dict, rewritten: bytes, model: bytes) -> None:
    """Write an entry under a temporary name and rename it into place; a folder that
    cannot take it keeps nothing, silently (the cache is an optimisation)."""
    head = json.dumps({"metadata": meta,
                       "rewritten": [len(rewritten), hashlib.sha256(rewritten).hexdigest()],
                       "model": [len(model), hashlib.sha256(model).hexdigest()]})
    try:
        _sweep(path.parent, len(model) + len(rewritten))
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + head.encode() + b"\n" + rewritten + model)
        os.replace(tmp, path)
    except OSError:
        pass


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
        elif p.suffix == ".model":
            entries.append((s.st_mtime, s.st_size, p))
    held = sum(size for _, size, _ in entries) + adding
    for _, size, p in sorted(entries):
        if held <= LIMIT:
            break
        p.unlink(missing_ok=True)
        held -= size
