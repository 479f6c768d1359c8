"""What a job is given a graph as: a path, its bytes, a graph made in Python, or one that
loaded already."""

from __future__ import annotations

from pathlib import Path
from typing import Union

from waiexport.certificate import Member
from waiexport.files import read_bounded
from waiexport.graph import Graph
from waiexport.load import read_member
from waiexport.whg1 import write

__all__ = ["Source", "READ_LIMIT", "member_of"]

Source = Union[str, Path, bytes, Graph, Member]
#: The most a graph file may hold.
READ_LIMIT = 1 << 31


def member_of(source: Source, name: str | None = None) -> Member:
    """``source`` loaded (§10.5 steps 1–8; ``Refusal`` at the first that fails), named
    ``name``, else the file's stem, else ``graph``."""
    if isinstance(source, Member):
        return source
    if isinstance(source, (bytes, Graph)):
        return read_member(source if isinstance(source, bytes) else write(source),
                           name or "graph")
    path = Path(source)
    return read_member(read_bounded(path, READ_LIMIT), name or path.stem)
