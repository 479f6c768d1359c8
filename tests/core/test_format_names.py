"""Formats are plug-ins in fact: nothing outside a format's folder (``targets/onnx``,
``targets/tosa``, ``targets/vela``) imports it or compares against a format's name, but an
engine whose class declares that format and the registries (``targets/format.py`` names
each format's module as text)."""

import ast
from importlib import import_module

from _helpers import FOLDERS

FORMATS = ("onnx", "tosa", "vela")


def _modules():
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder)
            if package == "waiexport" and rel.parts and f"waiexport.{rel.parts[0]}" in FOLDERS:
                continue
            parts = [p for p in rel.with_suffix("").parts if p != "__init__"]
            yield ".".join([package, *parts]), path


def _declared() -> dict[str, set[str]]:
    """Each engine module and the formats its engine classes declare."""
    from waiexport.targets.engines import ENGINES
    out: dict[str, set[str]] = {}
    for e in ENGINES:
        module, cls = e.where.split(":")
        out.setdefault(module, set()).update(getattr(getattr(import_module(module), cls),
                                                     "formats", ()))
    return out


def _uses(module: str, path) -> list[tuple[int, str]]:
    """Where ``module`` imports a format's folder or compares a value with a format's
    name: ``(line, format)``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Compare):
            for c in (node.left, *node.comparators):
                values = c.elts if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]
                found += [(node.lineno, v.value) for v in values
                          if isinstance(v, ast.Constant) and v.value in FORMATS]
        found += [(node.lineno, f) for n in names for f in FORMATS
                  if n == f"waiexport.targets.{f}" or n.startswith(f"waiexport.targets.{f}.")]
    return found


def test_no_module_outside_a_format_names_it_but_its_engines_and_the_registries():
    declared = _declared()
    leaks = []
    for module, path in _modules():
        if any(module.startswith(f"waiexport.targets.{f}") for f in FORMATS) or \
                module == "waiexport.targets.format":
            continue
        leaks += [f"{module}:{line}: {fmt}" for line, fmt in sorted(set(_uses(module, path)))
                  if fmt not in declared.get(module, ())]
    assert not leaks, "\n".join(leaks)


def test_the_walk_finds_an_import_and_a_comparison(tmp_path):
    source = ("from .onnx.probes import SATURATION\n"
              "def f(t):\n    return t.fmt == 'tosa'\n")
    path = tmp_path / "leak.py"
    path.write_text(source)
    assert {f for _, f in _uses("waiexport.targets.leak", path)} == {"onnx", "tosa"}
