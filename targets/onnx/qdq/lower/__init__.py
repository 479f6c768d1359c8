"""One QDQ lowering per operator the NPU computes exactly, by name: ``lower(emitter, op,
inputs, ctx) → outputs``, each output an 8-bit tensor (:mod:`..emit`); an operator without
one is refused by node."""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

from ....lowering import Lowering
from ..emit import QdqEmitter
from ._common import QdqCtx

__all__ = ["LOWER"]

#: Each lowered operator's QDQ lowering, by the §5 table's names: the modules here.
LOWER: dict[str, Lowering[QdqEmitter, QdqCtx]] = {
    m.name: import_module(f"{__name__}.{m.name}").lower
    for m in iter_modules(__path__)
    if not m.name.startswith("_")
}
