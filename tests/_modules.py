"""The product's modules by dotted name, and what each imports: read by the layout test
(floors and cycles) and the format-names test."""

from __future__ import annotations

import ast
from pathlib import Path

from _helpers import FOLDERS


def modules() -> dict[str, Path]:
    """Every product module by its dotted name."""
    found = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([package, *parts])
            if package == "waiexport" and parts and f"waiexport.{parts[0]}" in FOLDERS:
                continue
            found[name] = path
    return found


MODULES = modules()


def _run_time(tree: ast.AST):
    """Every node of ``tree`` outside ``if TYPE_CHECKING:`` blocks."""
    for node in ast.iter_child_nodes(tree):
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            yield from (n for child in node.orelse for n in ast.walk(child))
            continue
        yield node
        yield from _run_time(node)


def imports(module: str, source: str | None = None) -> set[str]:
    """The product modules ``module`` (or ``source`` read as that module) imports, wherever
    in the file the import stands, save under ``if TYPE_CHECKING:`` (names for type checkers,
    never imported when the code runs)."""
    path = MODULES.get(module)
    package = module if path and path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in _run_time(ast.parse(source or path.read_text(), str(path or module))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                out.add(name)
    return out
