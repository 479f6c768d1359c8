"""Where this package keeps what it builds once per install (compiled kernels, compiled
models): ``$XDG_CACHE_HOME/waiexport/KIND``, ``~/.cache`` by default or where that variable
is not an absolute path (the XDG rule). Where that folder
cannot be made or written (a read-only home, a file in its place, CI sandboxes), a
temporary folder of this process's own stands in, removed at exit, and one line on stderr
says so: nothing is kept, so the next run compiles again. Imports nothing heavy, so it can
run before numba is imported."""

import atexit
import hashlib
import os
import platform
import shutil
import sys
import tempfile
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from .files import own_pid, sweep

__all__ = [
    "user_cache",
    "code_digest",
    "host_cpu",
    "cpu_key",
    "seal",
    "unsealed",
    "kept",
    "keep",
    "note",
    "swept",
]

_TEMPORARY: dict = {}
_WRITABLE: dict = {}  # the folders found writable, by kind and $XDG_CACHE_HOME


def user_cache(kind: str) -> Path:
    """The cache folder for ``kind``, made and writable (see the module; a folder is tried
    once per process, since an engine asks for every model it loads)."""
    given = os.environ.get("XDG_CACHE_HOME", "")
    key = (kind, given if os.path.isabs(given) else "")  # the XDG rule: a relative one
    if key in _WRITABLE:  # is ignored
        return _WRITABLE[key]
    folder = Path(key[1] or Path.home() / ".cache") / "waiexport" / kind
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            _WRITABLE[key] = folder
            return folder
    except OSError as e:
        return _temporary(kind, folder, e)


def _temporary(kind: str, folder: Path, e: OSError) -> Path:
    if kind not in _TEMPORARY:
        swept()
        _TEMPORARY[kind] = Path(tempfile.mkdtemp(prefix=f"{_STAND_IN}{own_pid()}-{kind}-"))
        atexit.register(shutil.rmtree, _TEMPORARY[kind], True)
        note(
            f"waiexport: cannot use the cache folder {folder.parent} ({e.strerror or e}); "
            "this run keeps its caches in temporary folders, so nothing is kept"
        )
    return _TEMPORARY[kind]


#: The start of the names of the temporary folders that stand in for the cache folder.
_STAND_IN = "waiexport-cache-"


def swept() -> None:
    """Remove the temporary cache folders of processes that ended without removing theirs (a
    worker killed at its end, a command killed outright)."""
    sweep(Path(tempfile.gettempdir()), _STAND_IN, ("",))


_NOTED: set = set()


def note(line: str) -> None:
    """Write ``line`` to stderr once a process (a worker's own notes among them, which the
    parent passes on: one line however many engines and caches say it)."""
    if line not in _NOTED:
        _NOTED.add(line)
        print(line, file=sys.stderr, flush=True)


#: What a sealed cache file begins with, before the SHA-256 digest of the rest.
_SEAL = b"waiexport-sealed/1\n"


def seal(body: bytes) -> bytes:
    """``body`` as a cache file holds it: :data:`_SEAL`, the digest of ``body``, ``body``."""
    return _SEAL + hashlib.sha256(body).digest() + body


def unsealed(path: str | Path) -> bytes | None:
    """What the cache file ``path`` sealed (:func:`seal`); ``None`` where there is no such
    file, and, where its bytes are not what was written (cut short, emptied, a bit changed,
    written by another version), also: the file is removed and a line on stderr says so."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    head = len(_SEAL) + 32
    if (
        data[: len(_SEAL)] == _SEAL
        and hashlib.sha256(data[head:]).digest() == data[len(_SEAL) : head]
    ):
        return data[head:]
    _discard(Path(path))
    return None


def _discard(path: Path) -> None:
    """Remove the cache file ``path``, whose bytes are not what was written, saying so."""
    note(
        f"waiexport: the cached {path} is not what was written (cut short, changed, or kept "
        "by an earlier version); it is removed and built again"
    )
    try:
        path.unlink()
    except OSError:
        pass


def kept(folder: Path, key: str, suffix: str) -> Path | None:
    """A file kept in ``folder`` for ``key`` (:func:`keep`) whose bytes are what was written:
    its name carries their digest, ``KEY.DIGEST{suffix}``. One whose bytes differ is removed
    (:func:`_discard`); ``None`` where none is left."""
    for path in sorted(folder.glob(f"{key}.*{suffix}")):
        digest = path.name[len(key) + 1 : len(path.name) - len(suffix)]
        try:
            with open(path, "rb") as f:
                actual = hashlib.file_digest(f, "sha256").hexdigest()
        except OSError:
            continue
        if actual == digest:
            return path
        _discard(path)
    return None


def keep(folder: Path, key: str, suffix: str, write) -> Path:
    """Keep in ``folder`` the file that ``write(path)`` writes for ``key``: written under a
    temporary name of its own (two processes filling one cache never share one), then
    renamed to ``KEY.DIGEST{suffix}``, the digest of its bytes (:func:`kept`). Returns it."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key[:16]}.", suffix=".part" + suffix)
    os.close(fd)
    try:
        write(Path(tmp))
        with open(tmp, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        final = folder / f"{key}.{digest}{suffix}"
        os.replace(tmp, final)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return final


_CODE: list = []


def code_digest() -> str:
    """A digest of this package's source files as installed (each module's path, size and
    modification time): what a build kept in a cache depends on besides its own inputs, so
    an edit or another install of the package misses every entry the old code made."""
    if not _CODE:
        h = hashlib.sha256()
        for package in (
            "waiexport",
            "waiexport.rewrites",
            "waiexport.targets",
            "waiexport.reference",
            "waiexport.conformance",
        ):
            for root in find_spec(package).submodule_search_locations:
                for folder, subfolders, files in os.walk(root):
                    subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
                    for name in sorted(f for f in files if f.endswith(".py")):
                        s = os.stat(os.path.join(folder, name))
                        h.update(f"{folder}/{name} {s.st_size} {s.st_mtime_ns}\n".encode())
        _CODE.append(h.hexdigest())
    return _CODE[0]


@cache
def _cpuinfo() -> dict:
    """Each field's first value in ``/proc/cpuinfo`` (none where there is no such file)."""
    fields: dict = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def host_cpu() -> str:
    """This CPU, for a claim (and in :func:`cpu_key`): the machine and its model name."""
    model = _cpuinfo().get("model name", "")
    return f"{platform.machine()} {model or platform.processor()}".strip()


@cache
def cpu_key() -> str:
    """This CPU in a cache key of what was built for it: :func:`host_cpu` and a digest of the
    features its kernel reports (``/proc/cpuinfo``'s flags), so what was built where a
    feature was there is not reused where a machine of the same model name hides it (a
    virtual machine's)."""
    flags = _cpuinfo().get("flags", "")
    return f"{host_cpu()} {hashlib.sha256(flags.encode()).hexdigest()[:16]}"
