"""Formats and compile steps are plug-ins in fact: nothing outside a format's folder
(``targets/onnx``, ``targets/tosa``) or a compile step's (``targets/vela``) imports it or
compares against its name, but an engine whose class declares that format and the registries
(``targets/format.py`` names each one's module as text)."""

import ast
from importlib import import_module

from _modules import MODULES, imports

FORMATS = ("onnx", "tosa", "vela", "qdq", "tflite")


def _declared() -> dict[str, set[str]]:
    """Each engine module and the formats its engine classes declare."""
    from waiexport.targets.engines import ENGINES

    out: dict[str, set[str]] = {}
    for e in ENGINES:
        module, cls = e.where.split(":")
        out.setdefault(module, set()).update(
            getattr(getattr(import_module(module), cls), "formats", ())
        )
    return out


def _format(module: str) -> str | None:
    """The format whose folder holds ``module``, if any."""
    return next(
        (
            f
            for f in FORMATS
            if module == f"waiexport.targets.{f}" or module.startswith(f"waiexport.targets.{f}.")
        ),
        None,
    )


def _uses(module: str, source: str | None = None) -> set[str]:
    """The formats ``module`` (or ``source`` read as that module) names: a format's folder
    it imports, a format's name it compares a value with."""
    found = {f for f in map(_format, imports(module, source)) if f}
    for node in ast.walk(ast.parse(source or MODULES[module].read_text())):
        if isinstance(node, ast.Compare):
            for c in (node.left, *node.comparators):
                values = c.elts if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]
                found |= {
                    v.value for v in values if isinstance(v, ast.Constant) and v.value in FORMATS
                }
    return found


def test_no_module_outside_a_format_names_it_but_its_engines_and_the_registries():
    declared = _declared()
    leaks = [
        f"{module}: {fmt}"
        for module in sorted(MODULES)
        if not _format(module) and module != "waiexport.targets.format"
        for fmt in sorted(_uses(module) - declared.get(module, set()))
    ]
    assert not leaks, "\n".join(leaks)


def test_the_walk_finds_an_import_and_a_comparison():
    source = "from .onnx.probes import SATURATION\ndef f(t):\n    return t.fmt == 'tosa'\n"
    assert _uses("waiexport.targets.leak", source) == {"onnx", "tosa"}
