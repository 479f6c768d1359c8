"""Where this package keeps what it builds once per install (compiled kernels, compiled
models): ``$XDG_CACHE_HOME/waiexport/KIND``, ``~/.cache`` by default. Where that folder
cannot be made or written (a read-only home, a file in its place, CI sandboxes), a
temporary folder of this process's own stands in, removed at exit, and one line on stderr
says so: nothing is kept, so the next run compiles again. Imports nothing heavy, so it can
run before numba is imported."""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = ["user_cache"]

_TEMPORARY: dict = {}


def user_cache(kind: str) -> Path:
    """The cache folder for ``kind``, made and writable (see the module)."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    folder = Path(root) / "waiexport" / kind
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
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
