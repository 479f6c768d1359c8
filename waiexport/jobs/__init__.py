"""The jobs as a library, the floor just below the command line: each takes paths or bytes
and options and returns a frozen result whose ``to_json()`` is the command's ``--json``
output. Errors are the exceptions the command line maps to its exit codes: ``Refusal`` for a
file refused at load, ``ValueError`` for an option out of its range, ``KeyError`` for an
unknown target, ``EngineUnavailable`` for a runtime that is not installed.

Each name is imported from its job's module when first used, so a command imports its own
job alone (``check`` does not import the exporters); type checkers read the imports below."""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .checks import Checked, check
    from .exporting import Exported, SelfCheckFailed, SizeRefused, Unwritten, export
    from .fuzzing import Fuzzed, fuzz
    from .jpegai import AtScale, Decoded, InputRefused, jpegai_decode
    from .lowering import Lowered, lower
    from .rewriting import Rewritten, rewrite
    from .running import AtDecode, Ran, run
    from .validation import NothingToValidate, Validated, validate, vectors

#: Each name, and the job's module that holds it.
_WHERE = {
    **dict.fromkeys(("Checked", "check"), "checks"),
    **dict.fromkeys(
        ("Exported", "SelfCheckFailed", "SizeRefused", "Unwritten", "export"), "exporting"
    ),
    **dict.fromkeys(("Fuzzed", "fuzz"), "fuzzing"),
    **dict.fromkeys(("AtScale", "Decoded", "InputRefused", "jpegai_decode"), "jpegai"),
    **dict.fromkeys(("Lowered", "lower"), "lowering"),
    **dict.fromkeys(("Rewritten", "rewrite"), "rewriting"),
    **dict.fromkeys(("AtDecode", "Ran", "run"), "running"),
    **dict.fromkeys(("NothingToValidate", "Validated", "validate", "vectors"), "validation"),
}
__all__ = list(_WHERE)


def __getattr__(name: str) -> object:
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'waiexport.jobs' has no attribute {name!r}")
