"""The product code's rooms and floors (docs/architecture.md): every import,
function-local ones included, goes to the same floor or one below, and no file or room
imports itself back through another."""

import ast

import pytest

from _helpers import ROOT
from _modules import MODULES, imports


#: The rooms, lowest floor first; a room imports only from its floor and those below.
FLOORS = [
    ("waiexport",),
    ("waiexport.reference",),
    ("waiexport.rewrites", "waiexport.capabilities"),
    ("waiexport.targets",),
    ("waiexport.conformance",),
    ("waiexport.jobs",),
    ("waiexport.cli",),
]


def room(module: str) -> str:
    """The room a module lives in: the longest room name that prefixes it."""
    return max(
        (r for floor in FLOORS for r in floor if module == r or module.startswith(r + ".")), key=len
    )


def floor(module: str) -> int:
    return next(k for k, rooms in enumerate(FLOORS) if room(module) in rooms)


EDGES = {m: imports(m) for m in MODULES}


def test_the_walk_sees_every_room():
    assert {room(m) for m in MODULES} == {r for rooms in FLOORS for r in rooms}
    assert sum(len(e) for e in EDGES.values()) > 300


def test_the_walk_sees_imports_inside_functions_and_relative_ones():
    source = "def f():\n    from waiexport.cli import common\n    from ..targets import exporter\n"
    assert imports("waiexport.reference.decode", source) == {
        "waiexport.cli.common",
        "waiexport.targets.exporter",
    }


def test_no_import_goes_up_a_floor():
    up = sorted(
        f"{m} ({room(m)}) imports {t} ({room(t)})"
        for m, ts in EDGES.items()
        for t in ts
        if floor(t) > floor(m)
    )
    assert not up, "\n".join(up)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph``, or None."""
    state: dict = {}
    stack: list = []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for t in sorted(graph.get(n, ())):
            if state.get(t) == "open":
                return stack[stack.index(t) :] + [t]
            if t not in state:
                found = visit(t)
                if found:
                    return found
        stack.pop()
        state[n] = "done"
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_no_file_imports_itself_back():
    cycle = _cycle(EDGES)
    assert cycle is None, " -> ".join(cycle)


def test_no_room_imports_itself_back():
    rooms: dict = {}
    for m, ts in EDGES.items():
        rooms.setdefault(room(m), set()).update(room(t) for t in ts if room(t) != room(m))
    cycle = _cycle(rooms)
    assert cycle is None, " -> ".join(cycle)


@pytest.mark.parametrize("module", ["waiexport.cli"])
def test_help_imports_no_command(module):
    # the click group's table names each command's module and help line: --help reads the
    # table, so the start-up figures hold with module-top imports in the commands
    import importlib

    cli = importlib.import_module(module)
    assert cli.COMMANDS and all(isinstance(v, tuple) for v in cli.COMMANDS.values())


#: The optional runtimes (the extras' packages, and the tests' hypothesis): imported where
#: they run, so that the product works without them.
OPTIONAL = {
    "onnxruntime",
    "openvino",
    "tvm",
    "tract",
    "tosa",
    "tosa_serializer",
    "tosa_reference_model",
    "iree",
    "ethosu",
    "hypothesis",
    "onnxruntime_qnn",
    "tflite_micro",
    "ai_edge_litert",
}


def _inside_functions(tree):
    """Each import statement inside a function, with the function's first import line."""
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            block = []
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    block.append(node)
            yield from ((node, block[0]) for node in block)


def test_an_import_inside_a_function_says_why():
    """Imports stand at the top of a module, except the command line's (each command imports
    its job when it runs, so ``--help`` starts light: waiexport/cli/__init__.py), the optional
    runtimes', and those with a reason on their line or on their function's first import."""
    bare = []
    for module, path in MODULES.items():
        if module.startswith("waiexport.cli"):
            continue
        lines = path.read_text().splitlines()
        for node, first in _inside_functions(ast.parse("\n".join(lines))):
            top = (
                node.names[0].name
                if isinstance(node, ast.Import)
                else ""
                if node.level
                else node.module
            ).split(".")[0]
            said = "#" in lines[node.lineno - 1] or "#" in lines[first.lineno - 1]
            if top not in OPTIONAL and not said:
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bare, "an import inside a function without a reason: " + ", ".join(bare)


def test_no_optional_runtime_is_imported_at_the_top():
    """The product imports and its other commands run without any optional runtime."""
    top = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for module, path in MODULES.items()
        for node in ast.parse(path.read_text()).body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and not getattr(node, "level", 0)
        and (
            {a.name.split(".")[0] for a in node.names}
            if isinstance(node, ast.Import)
            else {node.module.split(".")[0]}
        )
        & OPTIONAL
    ]
    assert not top, "an optional runtime imported at the top: " + ", ".join(top)
