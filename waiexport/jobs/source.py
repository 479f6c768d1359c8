"""What a job is given a graph as: a path, its bytes, or a graph that loaded already."""

from __future__ import annotations

from pathlib import Path
from typing import Union

from waiexport.certificate import Member
from waiexport.files import read_bounded
from waiexport.load import read_member

__all__ = ["Source", "READ_LIMIT", "member_of"]

Source = Union[str, Path, bytes, Member]
#: The most a graph file may hold.
READ_LIMIT = 1 << 31


def member_of(source: Source, name: str | None = None) -> Member:
    """``source`` loaded (§10.5 steps 1–8; ``Refusal`` at the first that fails), named
    ``name``, else the file's stem, else ``graph``."""
    if isinstance(source, Member):
        return source
    if isinstance(source, bytes):
        return read_member(source, name or "graph")
    path = Path(source)
    return read_member(read_bounded(path, READ_LIMIT), name or path.stem)
