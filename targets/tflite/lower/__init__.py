"""One TFLite lowering per operator its int8 kernels compute exactly, by name:
``lower(builder, op, inputs, ctx) → outputs`` (tensor indices); an operator without one is
refused by node."""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

from ...lowering import Lowering
from ..build import TfliteBuilder
from ._common import TfliteCtx

__all__ = ["LOWER"]

#: Each lowered operator's TFLite lowering, by the §5 table's names: the modules here.
LOWER: dict[str, Lowering[TfliteBuilder, TfliteCtx]] = {
    m.name: import_module(f"{__name__}.{m.name}").lower
    for m in iter_modules(__path__)
    if not m.name.startswith("_")
}
