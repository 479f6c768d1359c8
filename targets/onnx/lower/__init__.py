"""One lowering per ``wai-ops/1`` operator, by name: ``lower(emitter, op, inputs, ctx) →
outputs``, every graph tensor an int32 ``[1, C, H, W]`` (acc32: the ``wai-ops/1-i32``
operators, §9.1) or an int64 one (acc64: all of them, ``softmax``, ``sigmoid``, ``elu``,
``layernorm_c`` and ``l2norm`` among them, with 128-bit values where §7.1 needs them)."""

from importlib import import_module

from waiexport.optable import OPS

from ...lowering import Lowering
from ..emit import Emitter
from ._common import DoesNotFit, ExportError, LowerCtx, clip

__all__ = ["LOWER", "LowerCtx", "ExportError", "DoesNotFit", "clip", "WIDE"]

#: Each operator's ONNX lowering, by the §5 table's names.
LOWER: dict[str, Lowering[Emitter, LowerCtx]] = {
    op.name: import_module(f"{__name__}.{op.name}").lower for op in OPS
}

#: The intermediates whose values the lowerings form as 128-bit values (:mod:`..wide`)
#: where their certified intervals pass 64 bits: every ``wide`` or ``product`` one (§7.1,
#: the operator table's ``wide`` column); any other past 64 bits is not lowered.
WIDE = {name for op in OPS for name in op.wide}
