"""waiexport: check, export and validate exact-integer networks (``wai-ops/1``).

The names below are imported when first used, so a command that needs none of them (the
command line's ``--help``, ``targets``) starts without networkx or numpy's graph machinery.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers read; at run time, __getattr__ below
    from .graph import Graph, Input, Scalar, Tensor
    from .jobs import (
        Checked,
        Decoded,
        Exported,
        Fuzzed,
        Lowered,
        Ran,
        Rewritten,
        Validated,
        check,
        export,
        fuzz,
        jpegai_decode,
        lower,
        rewrite,
        run,
        validate,
    )
    from .refusal import Refusal
    from .whg1 import read, write

#: Each public name, and the module that holds it.
_WHERE = {
    **dict.fromkeys(("Graph", "Input", "Scalar", "Tensor"), "graph"),
    "Refusal": "refusal",
    "read": "whg1",
    "write": "whg1",
    **dict.fromkeys(
        (
            "check",
            "Checked",
            "export",
            "Exported",
            "rewrite",
            "Rewritten",
            "lower",
            "Lowered",
            "run",
            "Ran",
            "validate",
            "Validated",
            "jpegai_decode",
            "Decoded",
            "fuzz",
            "Fuzzed",
        ),
        "jobs",
    ),
}
__all__ = [*_WHERE, "__version__"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'waiexport' has no attribute {name!r}")
