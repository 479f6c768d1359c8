"""The independent checker (§14.1): for each vector file, recompute ``load``, ``profiles`` and
every ``expect`` from the graph bytes and the inputs with the literal evaluator and the
term-by-term bounds fold (a stage vector's ``expect`` with the literal stage operators), write
the file again, and compare bytes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .stage_vectors import make_stage_vector
from waiexport.reference.stage import ELSEWHERE
from waiexport.whg1 import read

from .vectors import make_vector, read_vectors, vector_bytes, vector_inputs, write_lines

__all__ = ["check_file", "check_dir", "FileCheck", "SKIPPED"]

#: Folders of a corpus this checker does not recompute yet (§14.1 item 7, §14.3).
SKIPPED = ("certificates",)


@dataclass
class FileCheck:
    path: Path
    same: bool
    first_difference: str | None = None


def _rebuild(v: dict) -> dict:
    if "stage" in v:
        return make_stage_vector(
            v["id"], v["op"], v["stage"]["in"], v["stage"]["modes"], literal=True
        )
    data = v["graph_bytes"]
    decodes = []
    if v["load"] == "ok":
        decodes = vector_inputs(v, read(data))
    return make_vector(v["id"], data, decodes, literal=True)


def check_file(path: Path) -> FileCheck:
    """Recompute one file; ``same`` when the bytes are identical. A stage operator defined in
    a text this checker does not hold, or a vector with no canonical form (text outside
    printable ASCII, §8.5), is not reproduced, and the check says which."""
    original = vector_bytes(path)
    vectors = read_vectors(path, original)
    lines = []
    for v in vectors:
        where = f"vector {v['id'][:60]!a}"
        if v.get("op") in ELSEWHERE:
            return FileCheck(
                path,
                False,
                f"{where}: {v['op']} is defined in "
                f"{ELSEWHERE[v['op']]}, which this checker does not "
                "hold: not recomputed",
            )
        rebuilt = _rebuild(v)
        try:
            lines.append(write_lines([rebuilt]))
        except ValueError:  # text outside printable ASCII (jsonio.dumps)
            return FileCheck(
                path, False, f"{where}: text outside printable ASCII has no canonical form (§8.5)"
            )
    again = b"".join(lines)
    if again == original:
        return FileCheck(path, True)
    for line_a, line_b, v in zip(original.split(b"\n"), again.split(b"\n"), vectors):
        if line_a != line_b:
            return FileCheck(path, False, f"vector {v['id']} differs")
    return FileCheck(path, False, "the files differ in length")


def check_dir(root: Path, progress=None) -> tuple[list[FileCheck], list[Path]]:
    """Check every ``.jsonl`` under ``root`` except those under :data:`SKIPPED` folders;
    returns the checks and the skipped files (``progress(1)`` after each file)."""
    checks, skipped = [], []
    for path in sorted(root.rglob("*.jsonl")):
        if any(part in SKIPPED for part in path.relative_to(root).parts):
            skipped.append(path)
        else:
            checks.append(check_file(path))
        if progress:
            progress(1)
    return checks, skipped
