"""waiexport: check, export and validate exact-integer networks (``wai-ops/1``).

The names below are imported when first used, so a command that needs none of them (the
command line's ``--help``, ``targets``) starts without networkx or numpy's graph machinery.
"""

from importlib import import_module

__all__ = ["Graph", "Input", "Scalar", "Tensor", "Refusal", "read", "write", "check", "Checked",
           "export", "Exported", "rewrite", "Rewritten", "validate", "Validated", "__version__"]
__version__ = "0.1.0"

_WHERE = {"Graph": "graph", "Input": "graph", "Scalar": "graph", "Tensor": "graph",
          "Refusal": "refusal", "read": "whg1", "write": "whg1", "check": "jobs",
          "Checked": "jobs", "export": "jobs", "Exported": "jobs", "rewrite": "jobs",
          "Rewritten": "jobs", "validate": "jobs", "Validated": "jobs"}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'waiexport' has no attribute {name!r}")
