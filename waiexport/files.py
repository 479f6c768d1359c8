"""Files as the tools read and write them: every output, one file or a folder of them, is
written under a temporary name beside its target and renamed into place when complete, so an
interrupted or failed write leaves the target absent or whole and an earlier output intact;
and an untrusted file is read only when it is a regular file no larger than its kind allows.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = [
    "write_atomic",
    "new_folder",
    "output_folder",
    "ours",
    "foreign",
    "unlisted",
    "npy_header",
    "read_bounded",
    "npy_bytes",
    "umask",
    "sweep",
    "own_pid",
    "TooLarge",
    "NotRegular",
    "NotOurs",
    "MARK",
    "READ_LIMIT",
]

#: The most a file a user names (a graph, a decode, a vector file) may hold, unless its kind
#: says less.
READ_LIMIT = 1 << 31
#: How many times a folder put in place by other writers is moved aside before giving up.
_RACES = 100


class TooLarge(OSError):
    """A file larger than what its kind can hold: refused before it is read."""


class NotOurs(OSError):
    """A folder that holds what no earlier output of the command that would replace it
    holds: someone's files, never replaced."""


class NotRegular(OSError):
    """A path that is not a regular file (a folder, a FIFO, a device, a symbolic link where
    links are not followed): refused before it is read."""


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def umask() -> int:
    """This process's umask, read without changing it (``/proc``), or by setting it back."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path``: into a temporary file beside it, flushed, then renamed
    over it, with the mode a new file takes under the umask. Raises ``OSError`` (the target
    untouched) when any step fails."""
    path = Path(path)
    _sweep(path)
    fd, tmp = tempfile.mkstemp(prefix=_temporary(path), suffix=".part", dir=path.parent or ".")
    try:
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(path.parent)


def _temporary(path: Path) -> str:
    """The start of the name of a temporary beside ``path``: ``.NAME.PID.`` (NAME cut to 64
    characters, so a name of 255 has a temporary name too), by which :func:`_sweep` finds
    those a process killed before it could clean up left."""
    return f".{path.name[:64]}.{own_pid()}."


def own_pid() -> int:
    """This process's id as ``/proc`` names it: in a PID namespace of its own (an engine's
    worker) its id there differs, and names another process outside."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def _sweep(path: Path) -> None:
    """Remove the temporaries beside ``path`` (``.NAME.PID.*.part`` and ``.old``) that a
    process which has ended made (:func:`sweep`)."""
    sweep(path.parent if str(path.parent) else Path("."), f".{path.name[:64]}.", (".part", ".old"))


def sweep(folder: Path, start: str, ends: tuple) -> None:
    """Remove the entries of ``folder`` named ``START PID …END`` (``ends``: the endings of
    such names) that a process which has ended made: no process ``PID`` runs, or the one
    that does started after the entry was last changed (its number used again). Nothing
    where there is no ``/proc`` to tell which processes run."""
    if not os.path.isdir("/proc/self"):
        return
    try:
        entries = [
            e for e in os.scandir(folder) if e.name.startswith(start) and e.name.endswith(ends)
        ]
    except OSError:
        return
    for e in entries:
        pid = re.match(r"[0-9]*", e.name[len(start) :]).group()
        if not pid or int(pid) == own_pid():
            continue
        try:
            changed = e.stat(follow_symlinks=False).st_mtime
            alive = os.stat(f"/proc/{pid}").st_ctime <= changed + 1
        except FileNotFoundError:
            alive = False
        except OSError:
            continue
        if alive:
            continue
        if e.is_dir(follow_symlinks=False):
            shutil.rmtree(e.path, ignore_errors=True)
        else:
            try:
                os.unlink(e.path)
            except OSError:
                pass


def _swap_in(src: Path, dest: Path) -> None:
    """Move ``src`` to ``dest``: an existing ``dest`` (a folder, a file or a link, never
    followed) is moved aside first and removed once ``src`` stands in its place. A ``dest``
    another writer puts in place meanwhile is moved aside in turn: the last writer's stands,
    whole."""
    olds = []
    try:
        for _ in range(_RACES):
            if dest.exists() or dest.is_symlink():
                old = Path(
                    tempfile.mkdtemp(prefix=_temporary(dest), suffix=".old", dir=dest.parent)
                )
                os.rmdir(old)
                try:
                    os.replace(dest, old)
                    olds.append(old)
                except FileNotFoundError:  # another writer moved it aside first
                    pass
            try:
                os.replace(src, dest)
                break
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
        else:
            raise OSError(
                errno.EBUSY, f"{_RACES} other writers put {dest.name} in place while this one did"
            )
        _sync_folder(dest.parent)
    except BaseException:
        if olds and not (dest.exists() or dest.is_symlink()):
            os.replace(olds.pop(), dest)  # the earlier output back, as it was
        raise
    finally:
        for old in olds:
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)


@contextmanager
def new_folder(path: Path | str):
    """A fresh folder to fill, which replaces ``path`` as a whole when the block completes
    (an earlier ``path`` is removed only then); on any exception the new folder is removed
    and ``path`` is as it was. Yields the folder to write into."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    _sweep(path)
    work = Path(tempfile.mkdtemp(prefix=_temporary(path), suffix=".part", dir=parent))
    try:
        os.chmod(work, 0o777 & ~umask())
        yield work
        _swap_in(work, path)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


#: The mark of a folder a command wrote whole: which command, and every file below it.
MARK = ".waiexport-output.json"
_MARK_FORMAT = "waiexport-output/1"
#: The most bytes a mark may hold: a listing of a pack's files.
_MARK_LIMIT = 64 << 20


def _listed(path: Path, command: str) -> set | None:
    """The files (paths relative to ``path``) that the mark in ``path`` lists, where it is
    a mark of ``command``'s; else ``None``."""
    try:
        mark = json.loads(read_bounded(path / MARK, _MARK_LIMIT, follow=False))
    except (OSError, ValueError):
        return None
    files = mark.get("files") if type(mark) is dict else None
    if (
        mark.get("format") != _MARK_FORMAT
        or mark.get("command") != command
        or type(files) is not list
        or not all(type(f) is str for f in files)
    ):
        return None
    return set(files)


def foreign(path: Path | str, command: str) -> str | None:
    """The first entry of the folder ``path`` (a path relative to it) that is not an
    earlier output of ``command``: everything where ``path`` holds no mark of that command's
    (:data:`MARK`), else what its mark does not list (a link, a FIFO, a file the mark names
    replaced by a folder). ``None`` where ``path`` is absent, empty or such an output. Only
    the folders the mark names are entered, so a deep or wide tree is not walked."""
    path = Path(path)
    try:
        names = sorted(e.name for e in os.scandir(path))
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return "."
    if not names:
        return None
    listed = _listed(path, command)
    if listed is None:
        return next((n for n in names if n != MARK), MARK)
    return next(iter(unlisted(path, listed | {MARK})), None)


def unlisted(top: Path | str, listed: set, most: int = 1) -> list[str]:
    """Up to ``most`` entries below the folder ``top`` (paths relative to it, ``/``
    between names, sorted) that are not a regular file ``listed`` names: a link, a FIFO,
    a folder no listed path lies in. Only the folders the listed paths lie in are entered
    (none through a link), so a deep or wide tree is not walked."""
    top = Path(top)
    folders = {p.as_posix() for f in listed for p in Path(f).parents} - {"."}
    found: list[str] = []
    todo = [""]
    while todo and len(found) < most:
        at = todo.pop()
        for e in sorted(os.scandir(top / at), key=lambda e: e.name):
            rel = f"{at}/{e.name}" if at else e.name
            if e.is_dir(follow_symlinks=False) and rel in folders:
                todo.append(rel)
            elif not (e.is_file(follow_symlinks=False) and rel in listed):
                found.append(rel)
                if len(found) == most:
                    break
    return sorted(found)


def _mark(work: Path, command: str) -> None:
    """Write the mark of ``command``'s output into the folder ``work``: every file below it."""
    files = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
    (work / MARK).write_text(
        json.dumps({"format": _MARK_FORMAT, "command": command, "files": files}, ensure_ascii=True)
        + "\n"
    )


def ours(path: Path | str, command: str) -> None:
    """Raise :class:`NotOurs` where the folder ``path`` is not absent, empty or an earlier
    output of ``command`` (:func:`foreign`)."""
    found = foreign(path, command)
    if found is not None:
        raise NotOurs(
            errno.ENOTEMPTY,
            f"holds {ascii(found)[1:-1]}, which no earlier output of "
            f"'{command}' holds: give a new or an empty folder, or "
            "an earlier output of this command",
        )


@contextmanager
def output_folder(path: Path | str, command: str):
    """A fresh folder to fill, which replaces ``path`` whole as :func:`new_folder` does,
    marked as ``command``'s output (:data:`MARK`); where ``path`` is neither absent, empty
    nor an earlier output of ``command`` (:func:`foreign`), :class:`NotOurs` before the
    block and again before the replacement, with nothing touched. Yields the folder."""
    path = Path(path)
    ours(path, command)
    with new_folder(path) as work:
        yield work
        _mark(work, command)
        ours(path, command)


def read_bounded(path: Path | str, limit: int, follow: bool = True) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; ``follow=False``
    refuses a symbolic link too. Raises :class:`NotRegular`, :class:`TooLarge` or the
    ``OSError`` of the read. The size is read from the open file first: a larger one is
    refused before any byte is read, and one that grows is cut at ``limit + 1`` bytes and
    refused, never read whole; what is read is held in a buffer of the file's size, not the
    limit's."""
    flags = os.O_RDONLY | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    flags |= getattr(os, "O_NONBLOCK", 0)  # a FIFO opens without waiting for a writer
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow and os.path.islink(path):
            raise NotRegular(e.errno, "a symbolic link, not followed") from None
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise NotRegular(0, kind)
        if st.st_size > limit:  # refused before any read
            raise TooLarge(0, f"larger than the {limit:,} bytes a file of its kind may hold")
        first = st.st_size + 1  # a buffer the file's size, not the limit's
        data = f.read(first)
        if len(data) == first <= limit:  # it grew since: the rest, up to the limit's
            data += f.read(limit + 1 - first)
    if len(data) > limit:
        raise TooLarge(0, f"larger than the {limit:,} bytes a file of its kind may hold")
    return data


def npy_bytes(a) -> bytes:
    """An array as the bytes of a ``.npy`` file, without pickles."""

    buf = io.BytesIO()
    np.save(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()


#: A token of an ``.npy`` header: punctuation, a short quoted string without escapes,
#: ``True``/``False``, or a whole number of at most 19 digits.
_NPY_TOKEN = re.compile(
    r"\s*(?:([{}():,])|'([^'\\]{0,64})'|\"([^\"\\]{0,64})\"|(True|False)"
    r"|([0-9]{1,19}))"
)


def npy_header(f, limit: int) -> tuple:
    """The ``.npy`` header of the open file ``f`` (format 1.0 or 2.0), read up to its data:
    ``(shape, fortran_order, dtype)``. Its length is checked against ``limit`` before it is
    read, and it is parsed by a small parser of the dictionary numpy writes (string keys;
    a string, ``True``/``False`` or a tuple of whole numbers for values), not Python's, so
    no header costs more than ``limit`` bytes or a parser's recursion. ``ValueError``
    where it is not such a header."""
    magic = f.read(8)
    if len(magic) < 8 or magic[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy file")
    if (magic[6], magic[7]) not in ((1, 0), (2, 0)):
        raise ValueError("an .npy format version other than 1.0 and 2.0")
    width = 2 if magic[6] == 1 else 4
    size = f.read(width)
    n = int.from_bytes(size, "little")
    if len(size) < width or n > limit:
        raise ValueError(
            f"a header of {n:,} bytes, past the {limit:,} a result's may hold"
            if len(size) == width
            else "cut short in its header"
        )
    text = f.read(n)
    if len(text) < n:
        raise ValueError("cut short in its header")
    fields = _npy_fields(text.decode("latin-1"))
    descr, fortran, shape = (fields.get(k) for k in ("descr", "fortran_order", "shape"))
    if (
        set(fields) != {"descr", "fortran_order", "shape"}
        or type(descr) is not str
        or not re.fullmatch(r"[<>|=]?[a-zA-Z][0-9]{0,3}", descr)
        or type(fortran) is not bool
        or type(shape) is not tuple
    ):
        raise ValueError("a header without numpy's descr, fortran_order and shape")
    try:
        return shape, fortran, np.dtype(descr)
    except TypeError:
        raise ValueError(f"a type numpy does not know: {descr}") from None


def _npy_fields(text: str) -> dict:
    """The dictionary of an ``.npy`` header's text (:func:`npy_header`)."""
    tokens, at, text = [], 0, text.rstrip(" \n")
    while at < len(text):
        m = _NPY_TOKEN.match(text, at)
        if not m:
            raise ValueError(f"a header numpy does not write, at character {at}")
        at = m.end()
        punct, q1, q2, flag, number = m.groups()
        if punct:
            tokens.append(punct)
        elif q1 is not None or q2 is not None:
            tokens.append(("s", q2 if q1 is None else q1))
        elif flag:
            tokens.append(("b", flag == "True"))
        else:
            tokens.append(("i", int(number)))
    fields, k = {}, 1
    if not tokens or tokens[0] != "{":
        raise ValueError("a header that is not a dictionary")
    while tokens[k : k + 1] != ["}"]:
        key, colon = tokens[k : k + 2] if len(tokens) > k + 1 else (None, None)
        if type(key) is not tuple or key[0] != "s" or colon != ":" or key[1] in fields:
            raise ValueError("a header numpy does not write")
        value, k = _npy_value(tokens, k + 2)
        fields[key[1]] = value
        if tokens[k : k + 1] == [","]:
            k += 1
        elif tokens[k : k + 1] != ["}"]:
            raise ValueError("a header numpy does not write")
    if k + 1 != len(tokens):
        raise ValueError("a header with more after its dictionary")
    return fields


def _npy_value(tokens: list, k: int) -> tuple:
    """The value at ``tokens[k]``: a string, a flag, or a tuple of whole numbers; and the
    index after it."""
    t = tokens[k] if k < len(tokens) else None
    if type(t) is tuple and t[0] in "sb":
        return t[1], k + 1
    if t != "(":
        raise ValueError("a header numpy does not write")
    items, k = [], k + 1
    while tokens[k : k + 1] != [")"]:
        t = tokens[k] if k < len(tokens) else None
        if type(t) is not tuple or t[0] != "i":
            raise ValueError("a shape that is not whole numbers")
        items.append(t[1])
        k += 1
        if tokens[k : k + 1] == [","]:
            k += 1
        elif tokens[k : k + 1] != [")"]:
            raise ValueError("a header numpy does not write")
    return tuple(items), k + 1
