"""What every command shares: the one-line error (``WHAT: CODE: WHERE: WHY``, exit 2), reading
and writing the paths it is given, loading a graph, naming a target or an engine, and
running vectors with a progress bar."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import click

from waiexport.files import READ_LIMIT
from waiexport.jsonio import report_json
from waiexport.refusal import Refusal

__all__ = [
    "fail",
    "read_file",
    "write_file",
    "write_folder",
    "written",
    "writable",
    "folder",
    "load_file",
    "target_named",
    "size_of",
    "engine_named",
    "engine_option",
    "progress",
]


class _NoBar:
    def update(self, n: int) -> None:
        pass


def progress(length: int, label: str):
    """A progress bar of ``length`` steps on standard error while it is a terminal (as git's);
    into a log or a pipe nothing, so standard error holds only what went wrong."""
    import contextlib

    if not sys.stderr.isatty():
        return contextlib.nullcontext(_NoBar())
    return click.progressbar(length=length, label=label, file=sys.stderr, show_pos=True)


def fail(what: str, code: str, where: str, why: str) -> None:
    """End the command with one line, ``WHAT: CODE: WHERE: WHY``, and exit 2."""
    click.echo(f"{what}: {code}: {where}: {why}", err=True)
    sys.exit(2)


def fail_bad_input(what: str, code: str, e: Exception) -> None:
    """``fail`` for a ``BadInput``, its location (``FILE:LINE …`` or ``decode K …``) moved
    into WHAT and WHERE."""
    import re

    text = str(e)
    m = re.fullmatch(r"(.+?):(\d+)((?: [^:]+)?): (.*)", text, re.S)
    if m:
        fail(m[1], code, f"line {m[2]}{m[3]}", m[4])
    where, sep, why = text.partition(": ")
    if sep and re.match(r"(decode|input|scalar) \d", where):
        fail(what, code, where, why)
    if sep and Path(where).exists():
        fail(where, code, "-", why)
    fail(what, code, "-", text)


def _a_file(path: str, empty: str) -> Path:
    """``path`` as a file's path: empty (ends in one line with the code ``empty``) or a
    folder ends in one line."""
    if not path:
        fail("''", empty, "-", "an empty path")
    if Path(path).is_dir():
        fail(path, "not-a-file", "-", "a folder, where a file is expected")
    return Path(path)


def read_file(path: str, limit: int = READ_LIMIT) -> bytes:
    """A regular file's bytes, at most ``limit`` of them; a path that is missing, a folder,
    a FIFO or device, larger than ``limit`` or unreadable ends in one line, before any read."""
    from waiexport.files import NotRegular, TooLarge, read_bounded

    p = _a_file(path, "not-found")
    try:
        return read_bounded(p, limit)
    except NotRegular as e:
        fail(path, "not-a-file", "-", e.strerror)
    except TooLarge as e:
        fail(path, "too-large", "-", e.strerror)
    except FileNotFoundError:
        fail(path, "not-found", "-", "no such file")
    except OSError as e:
        fail(path, "unreadable", "-", e.strerror or str(e))


def write_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (an earlier file is replaced only by a complete
    one); a path that cannot be written ends in one line."""
    from waiexport.files import write_atomic

    p = _a_file(path, "unwritable")
    try:
        write_atomic(p, data)
    except OSError as e:
        fail(path, "unwritable", "-", e.strerror or str(e))


def write_folder(path: str, files: dict, command: str) -> None:
    """Write ``files`` (relative path → bytes) as the folder ``path``, as a whole, marked as
    ``command``'s output: an earlier one is replaced only by a complete one, and a folder
    that is not an earlier output of ``command`` is refused (:func:`written`), so no user's
    files are removed."""
    from waiexport.files import output_folder

    with written(path):
        with output_folder(Path(path), command) as work:
            for name, data in files.items():
                (work / name).parent.mkdir(parents=True, exist_ok=True)
                (work / name).write_bytes(data)


@contextmanager
def written(path: str):
    """A block that writes the output ``path``: an ``OSError`` in it ends in one line,
    ``not-empty`` for a folder that is not the command's earlier output."""
    from waiexport.files import NotOurs

    try:
        yield
    except NotOurs as e:
        fail(path, "not-empty", "-", e.strerror)
    except OSError as e:
        fail(path, "unwritable", "-", e.strerror or str(e))


def writable(path: str, folder: str = "") -> None:
    """End in one line, before any work, when a file (or with ``folder``, the name of the
    command that writes the folder ``path`` whole: a folder) cannot be written at ``path``,
    or the folder is not that command's earlier output (:func:`waiexport.files.foreign`)."""
    import os
    import tempfile

    from waiexport.files import ours

    if folder:
        if not path:
            fail("''", "unwritable", "-", "an empty path")
        if Path(path).exists() and not Path(path).is_dir():
            fail(path, "not-a-folder", "-", "a file, where a folder is expected")
        with written(path):
            ours(path, folder)
    p = Path(path) if folder else _a_file(path, "unwritable")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        fail(path, "unwritable", "-", f"no folder {parent}")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        fail(path, "unwritable", "-", "permission denied")
    if not p.exists():  # a folder such as /proc grants root access and still takes nothing
        try:
            if folder:
                os.rmdir(tempfile.mkdtemp(prefix=".waiexport-", dir=parent))
            else:
                p.touch()
                p.unlink()
        except OSError as e:
            fail(path, "unwritable", "-", e.strerror or str(e))


def folder(path: str) -> Path:
    """The folder ``path``, made if absent; one that cannot be ends in one line."""
    if not path:
        fail("''", "unwritable", "-", "an empty path")
    p = Path(path)
    if p.exists() and not p.is_dir():
        fail(path, "not-a-folder", "-", "a file, where a folder is expected")
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / ".waiexport-write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        fail(path, "unwritable", "-", e.strerror or str(e))
    return p


def load_file(path: str, as_json: bool = False, loader=None, capability: str | None = None):
    """The bytes and what ``loader`` makes of them; a refusal prints one line (or
    ``{"refuse": code}`` with ``as_json``), in ``capability``'s codes when given, and exits 2;
    so does an engine that cannot take the graph or fails loading it."""
    from waiexport.codes import reported_code
    from waiexport.targets.errors import EngineFailure, ExportError, NotForEngine
    from waiexport.whg1 import read

    data = read_file(path)
    try:
        return data, (loader or read)(data)
    except Refusal as r:
        code = reported_code(capability, r.code)
        hint = (
            " (a JSON file: 'waiexport lower int_synth FILE -o DIR' lowers an int_synth "
            "set to WHG1)"
            if data[:1] == b"{" and r.code == "model_mismatch"
            else ""
        )
        if as_json:
            click.echo(report_json({"refuse": code}))
            sys.exit(2)
        fail(path, code, r.where, f"{r.detail}{hint}")
    except (ExportError, NotForEngine) as e:
        fail(path, "does-not-fit", "-", str(e))
    except EngineFailure as e:
        fail(path, "engine-failure", "load", str(e))


def target_named(name: str, given_as: str = "--target"):
    """The target called ``name`` (given as the option or argument ``given_as``); an unknown
    one ends in one line, exit 2."""
    from waiexport.descriptions import target

    try:
        return target(name)
    except KeyError as e:
        fail(given_as, "usage", "-", e.args[0])


def size_of(text: str) -> tuple[int, int]:
    try:
        h, w = (int(v) for v in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not HxW (two sizes, e.g. 16x16)", param_hint="--size"
        ) from None
    if h < 1 or w < 1:
        raise click.BadParameter(f"{text!r}: sizes are at least 1", param_hint="--size")
    return h, w


def engine_named(name: str, fallback: bool = False, target: str | None = None, **limits):
    """The engine called ``name``, an engine with a native runtime of its own in a worker
    process (``limits``: ``time_limit``, ``memory_limit``), running ``target``'s models where
    given; an unknown or unavailable one, or a target it cannot run, ends in one line."""
    from waiexport.targets.engines import engine
    from waiexport.targets.errors import EngineFailure, EngineUnavailable

    if target is not None:
        target_named(target)
    try:
        return engine(name, fallback=fallback, isolate=True, target=target, **limits)
    except KeyError as e:
        raise click.BadParameter(e.args[0], param_hint="--engine") from None
    except (EngineUnavailable, EngineFailure) as e:
        fail(f"--engine {name}", "unavailable", "-", str(e))


class _EngineOption(click.Option):
    """``--engine``, whose help names every engine the registry and the plug-ins installed
    when the help is shown name (nothing is imported to say so)."""

    def __init__(self, *args, what: str, **kwargs):
        super().__init__(*args, help=what, **kwargs)
        self.what = what

    def get_help_record(self, ctx):
        from waiexport.targets.engines import help_text

        self.help = f"{self.what} One of: {help_text()}."
        return super().get_help_record(ctx)


def engine_option(what: str):
    """The ``--engine`` option of a command: ``what`` the engine does there."""
    return click.option(
        "--engine",
        "engine_name",
        default="reference",
        show_default=True,
        cls=_EngineOption,
        what=what,
    )
