"""Where this package keeps what it builds once per install (compiled kernels, compiled
models): a folder any install can write, ``$XDG_CACHE_HOME/waiexport/KIND``, ``~/.cache`` by
default. Imports nothing heavy, so it can run before numba is imported."""

import os
from pathlib import Path

__all__ = ["user_cache"]


def user_cache(kind: str) -> Path:
    """The cache folder for ``kind`` (not made here)."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "waiexport" / kind
