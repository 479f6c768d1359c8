"""Where this package keeps what it builds once per install (compiled kernels, compiled
models): ``$XDG_CACHE_HOME/waiexport/KIND``, ``~/.cache`` by default. Where that folder
cannot be made or written (a read-only home, a file in its place, CI sandboxes), a
temporary folder of this process's own stands in, removed at exit, and one line on stderr
says so: nothing is kept, so the next run compiles again. Imports nothing heavy, so it can
run before numba is imported."""

import atexit
import os
import platform
import shutil
import sys
import tempfile
from functools import cache
from pathlib import Path

__all__ = ["user_cache", "code_digest", "host_cpu", "cpu_key"]

_TEMPORARY: dict = {}
_WRITABLE: dict = {}     # the folders found writable, by kind and $XDG_CACHE_HOME


def user_cache(kind: str) -> Path:
    """The cache folder for ``kind``, made and writable (see the module; a folder is tried
    once per process, since an engine asks for every model it loads)."""
    key = (kind, os.environ.get("XDG_CACHE_HOME"))
    if key in _WRITABLE:
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
        _TEMPORARY[kind] = Path(tempfile.mkdtemp(prefix=f"waiexport-{kind}-"))
        atexit.register(shutil.rmtree, _TEMPORARY[kind], True)
        print(f"waiexport: cannot use the cache folder {folder} ({e.strerror or e}); this run "
              f"keeps its {kind} cache in a temporary folder, so nothing is kept",
              file=sys.stderr, flush=True)
    return _TEMPORARY[kind]


_CODE: list = []


def code_digest() -> str:
    """A digest of this package's source files as installed (each module's path, size and
    modification time): what a build kept in a cache depends on besides its own inputs, so
    an edit or another install of the package misses every entry the old code made."""
    if not _CODE:
        import hashlib
        from importlib.util import find_spec
        h = hashlib.sha256()
        for package in ("waiexport", "waiexport.rewrites", "waiexport.targets",
                        "waiexport.reference", "waiexport.conformance"):
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
    import hashlib
    flags = _cpuinfo().get("flags", "")
    return f"{host_cpu()} {hashlib.sha256(flags.encode()).hexdigest()[:16]}"
