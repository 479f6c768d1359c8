"""The vector generator: every case function, run through the reference, written as the
committed corpus (``vectors/<operator>.jsonl``, ``graphs/<name>.jsonl``); every stage case
through :mod:`waiexport.reference.stage` (``stage/<operator>.jsonl``)."""

from __future__ import annotations

from pathlib import Path

from waiexport.whg1 import write

from .cases import GRAPHS, OPERATORS
from .cases.stage import STAGE
from .stage_vectors import make_stage_vector
from .vectors import make_vector, write_lines

__all__ = ["generate", "CORPUS"]

#: The committed corpus, beside this module.
CORPUS = Path(__file__).resolve().parent / "corpus"


def _vectors(cases) -> list[dict]:
    out = []
    for fn in cases:
        case = fn()
        data = case.graph if isinstance(case.graph, bytes) else write(case.graph)
        out.append(make_vector(fn.__name__, data, case.decodes))
    return out


def generate(root: Path) -> list[Path]:
    """Write the corpus under ``root``; returns the files written."""
    written = []
    for folder, table in (("vectors", OPERATORS), ("graphs", GRAPHS)):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name, cases in table.items():
            path = root / folder / f"{name}.jsonl"
            path.write_bytes(write_lines(_vectors(cases)))
            written.append(path)
    (root / "stage").mkdir(parents=True, exist_ok=True)
    for name, cases in STAGE.items():
        path = root / "stage" / f"{name}.jsonl"
        path.write_bytes(
            write_lines([make_stage_vector(vid, name, inp, modes) for vid, inp, modes in cases])
        )
        written.append(path)
    return written
