"""The jobs as a library, the floor just below the command line: each takes paths or bytes
and options and returns a frozen result whose ``to_json()`` is the command's ``--json``
output. Errors are the exceptions the command line maps to its exit codes: ``Refusal`` for a
file refused at load, ``ValueError`` for an option out of its range, ``KeyError`` for an
unknown target, ``EngineUnavailable`` for a runtime that is not installed."""

from .checks import Checked, check
from .exporting import Exported, SelfCheckFailed, SizeRefused, Unwritten, export
from .jpegai import AtScale, Decoded, InputRefused, jpegai_decode
from .lowering import Lowered, lower
from .rewriting import Rewritten, rewrite
from .running import AtDecode, Ran, run
from .validation import NothingToValidate, Validated, validate, vectors

__all__ = ["Checked", "check", "Exported", "SelfCheckFailed", "SizeRefused", "Unwritten", "export",
           "Lowered", "lower", "Rewritten", "rewrite", "Ran", "AtDecode", "run", "Validated",
           "NothingToValidate", "validate", "vectors", "Decoded", "InputRefused", "AtScale",
           "jpegai_decode"]
