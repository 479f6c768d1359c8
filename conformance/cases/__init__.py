"""The conformance cases: one module per graph operator (§5), ``graphs`` and ``lowerings``
(§14.2), each with ``CASES``, a list of named functions; a function's name is its vector's
id."""

from importlib import import_module

from waiexport.optable import OPS

from . import graphs, lowerings

__all__ = ["OPERATORS", "GRAPHS"]

#: Per-operator case lists, by operator name (``vectors/<name>.jsonl``).
OPERATORS = {
    name: import_module(f"{__name__}.{name}").CASES for name in sorted(op.name for op in OPS)
}
#: Graph case lists, by file name (``graphs/<name>.jsonl``).
GRAPHS = {"graphs": graphs.CASES, "lowerings": lowerings.CASES}
