"""Files as the tools read and write them: every output, one file or a folder of them, is
written under a temporary name beside its target and renamed into place when complete, so an
interrupted or failed write leaves the target absent or whole and an earlier output intact;
and an untrusted file is read only when it is a regular file no larger than its kind allows.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["write_atomic", "new_folder", "into_folder", "read_bounded", "npy_bytes", "TooLarge",
           "NotRegular"]

#: How many times a folder put in place by other writers is moved aside before giving up.
_RACES = 100


class TooLarge(OSError):
    """A file larger than what its kind can hold: refused before it is read."""


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


def write_atomic(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path``: into a temporary file beside it, flushed, then renamed
    over it. Raises ``OSError`` (the target untouched) when any step fails."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or ".")
    try:
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


def _swap_in(src: Path, dest: Path) -> None:
    """Move ``src`` to ``dest``: an existing ``dest`` (a folder, a file or a link, never
    followed) is moved aside first and removed once ``src`` stands in its place. A ``dest``
    another writer puts in place meanwhile is moved aside in turn: the last writer's stands,
    whole."""
    olds = []
    try:
        for _ in range(_RACES):
            if dest.exists() or dest.is_symlink():
                old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".old",
                                            dir=dest.parent))
                os.rmdir(old)
                try:
                    os.replace(dest, old)
                    olds.append(old)
                except FileNotFoundError:       # another writer moved it aside first
                    pass
            try:
                os.replace(src, dest)
                break
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
        else:
            raise OSError(errno.EBUSY, f"{_RACES} other writers put {dest.name} in place "
                                       "while this one did")
        _sync_folder(dest.parent)
    except BaseException:
        if olds and not (dest.exists() or dest.is_symlink()):
            os.replace(olds.pop(), dest)        # the earlier output back, as it was
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
    work = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".part", dir=parent))
    try:
        yield work
        _swap_in(work, path)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


@contextmanager
def into_folder(path: Path | str):
    """A fresh folder to fill, inside ``path`` (made if absent), whose entries replace those
    of ``path`` of the same names when the block completes, each as a whole (a file by one
    rename, a folder by :func:`_swap_in`); ``path``'s other entries stay. Where ``path`` is
    absent or empty, it appears whole at once (:func:`new_folder`), so a writer killed part
    way leaves none of its entries. On an exception in the block nothing in ``path`` has
    changed. Yields the folder to write into."""
    path = Path(path)
    if not path.exists() or path.is_dir() and not any(path.iterdir()):
        path.parent.mkdir(parents=True, exist_ok=True)
        with new_folder(path) as work:
            yield work
        return
    work = Path(tempfile.mkdtemp(prefix=".staged.", suffix=".part", dir=path))
    try:
        yield work
        for entry in sorted(work.iterdir()):
            if entry.is_dir():
                _swap_in(entry, path / entry.name)
            else:
                os.replace(entry, path / entry.name)
        _sync_folder(path)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def read_bounded(path: Path | str, limit: int, follow: bool = True) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; ``follow=False``
    refuses a symbolic link too. Raises :class:`NotRegular`, :class:`TooLarge` or the
    ``OSError`` of the read. The size is read from the open file, so a file that grows is
    cut at ``limit + 1`` bytes and refused, never read whole; what is read is held in a
    buffer of the file's size, not the limit's."""
    flags = os.O_RDONLY | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    flags |= getattr(os, "O_NONBLOCK", 0)       # a FIFO opens without waiting for a writer
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
        first = min(limit, st.st_size) + 1     # a buffer the file's size, not
        data = f.read(first)                   # the limit's
        if len(data) == first <= limit:     # it grew since: the rest, up to the limit's
            data += f.read(limit + 1 - first)
    if len(data) > limit:
        raise TooLarge(0, f"larger than the {limit:,} bytes a file of its kind may hold")
    return data


def npy_bytes(a) -> bytes:
    """An array as the bytes of a ``.npy`` file, without pickles."""
    import io

    import numpy as np
    buf = io.BytesIO()
    np.save(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()
