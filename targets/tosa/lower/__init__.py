"""One TOSA lowering per operator it maps, by name:
``lower(builder, op, inputs, ctx) → outputs``; an operator without one is refused by name."""

from importlib import import_module

from waiexport.optable import OPS

from ...lowering import Lowering
from ..build import TosaBuilder
from ._common import TosaCtx

__all__ = ["LOWER"]

#: Each ``wai-ops/1-npu`` operator's TOSA lowering, by the §5 table's names.
LOWER: dict[str, Lowering[TosaBuilder, TosaCtx]] = {
    op.name: import_module(f"{__name__}.{op.name}").lower for op in OPS if op.npu != "no"
}
