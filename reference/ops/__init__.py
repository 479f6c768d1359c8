"""One function per graph operator (§5), by name: ``run(params, inputs, ctx) → outputs``.

Inputs and outputs are ``[C, H, W]`` numpy arrays of exact integers (``int64``, or ``object``
where a value passes i64); ``ctx`` carries this decode's scalar values and the output tensors'
channel counts.
"""

from dataclasses import dataclass
from importlib import import_module
from typing import Callable

from waiexport.optable import OPS

from ..arrays import rround

__all__ = ["REFERENCE", "OpCtx"]


@dataclass(frozen=True)
class OpCtx:
    """What an operator reads beyond its inputs and parameters: the scalars' values, its
    outputs' channel counts, who hears its named intermediates (the literal implementation),
    and the rounding ``R_mode(p, s)`` of §2 it rounds every scaled product with: the
    reference's own, or a test double's, or a spy's (``--locate`` reads the values it
    rounds)."""

    scalars: tuple
    out_channels: tuple
    note: Callable[[str, int], None] = lambda key, value: None
    rounding: Callable = rround


#: Each operator's semantics, by the §5 table's names: ``reference/ops/<name>.py``'s ``run``.
REFERENCE = {op.name: import_module(f"{__name__}.{op.name}").run for op in OPS}
