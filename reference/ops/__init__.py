"""One function per graph operator (§5), by name: ``run(params, inputs, ctx) → outputs``.

Inputs and outputs are ``[C, H, W]`` numpy arrays of exact integers (``int64``, or ``object``
where a value passes i64); ``ctx`` carries this decode's scalar values and the output tensors'
channel counts.
"""

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from waiexport.optable import OPS

from ..arrays import rround

__all__ = ["REFERENCE", "OpCtx", "Run", "Inputs", "Outputs"]

#: An operator's input tensors, in its slots' order.
Inputs = Sequence[np.ndarray]
#: An operator's output tensors, in its slots' order.
Outputs = list[np.ndarray]


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


class Run(Protocol):
    """The hook every ``reference/ops/<name>.py`` defines: ``run(p, ins, ctx) → outputs``, ``p``
    the operator's parameter class (:mod:`waiexport.params`)."""

    def __call__(self, p: Any, ins: Inputs, ctx: OpCtx, /) -> Outputs: ...


#: Each operator's semantics, by the §5 table's names: ``reference/ops/<name>.py``'s ``run``.
REFERENCE: dict[str, Run] = {op.name: import_module(f"{__name__}.{op.name}").run for op in OPS}
