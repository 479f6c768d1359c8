"""What a job is given a graph as: a path, its bytes, a graph made in Python, or one that
loaded already."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Union

from waiexport.certificate import Member
from waiexport.files import READ_LIMIT, read_bounded
from waiexport.graph import Graph
from waiexport.load import read_member
from waiexport.whg1 import write

__all__ = ["Progress", "Source", "data_of", "member_of"]

Source = Union[str, Path, bytes, Graph, Member]

#: ``progress(label, total)`` → a function told how many steps finished.
Progress = Callable[[str, int], Callable[[int], None]]


def data_of(source: Source) -> bytes:
    """``source``'s WHG1 bytes: read (bounded), written, or as given; nothing is loaded."""
    if isinstance(source, Member):
        return source.data
    if isinstance(source, bytes):
        return source
    if isinstance(source, Graph):
        return write(source)
    return read_bounded(Path(source), READ_LIMIT)


def member_of(source: Source, name: str | None = None) -> Member:
    """``source`` loaded (§10.5 steps 1–8; ``Refusal`` at the first that fails), named
    ``name``, else the file's stem, else ``graph``."""
    if isinstance(source, Member):
        return source if name in (None, source.name) else replace(source, name=name)
    stem = Path(source).stem if isinstance(source, (str, Path)) else "graph"
    return read_member(data_of(source), name or stem)
