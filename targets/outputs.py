"""What an engine returns for one decode, and how that is checked: every output by name
(``out0``, ``out1``, …), each an integer array in the shape the graph gives it. Nothing is
compared by position: a missing, extra, mis-shaped or non-integer output fails the decode,
saying which."""

from __future__ import annotations

import numpy as np

from waiexport.graph import Graph
from waiexport.jsonio import INTEGERS
from waiexport.plan import run_plan

from .errors import EngineFailure

__all__ = ["OutputMismatch", "by_name", "in_order"]


class OutputMismatch(EngineFailure):
    """An engine's outputs are not the graph's: one missing, extra, of another shape or not
    of an integer type. That decode fails, saying which; it is never compared by position."""


def by_name(values) -> dict:
    """Outputs in the graph's output-table order as the engine interface returns them: by
    name, ``out0``, ``out1``, …"""
    return {f"out{j}": v for j, v in enumerate(values)}


def in_order(g: Graph, got, inputs, scalars) -> list[np.ndarray]:
    """An engine's outputs by name (:func:`by_name`) as the graph's outputs, in table order,
    each checked against the name, shape and integer type the graph gives it for this
    decode (§4's plan); :class:`OutputMismatch` names the first that is not."""
    if not isinstance(got, dict):
        raise OutputMismatch(f"the engine returned {type(got).__name__}, not its outputs by name")
    names = [f"out{j}" for j in range(len(g.outputs))]
    missing = [n for n in names if n not in got]
    extra = sorted(str(n)[:40] for n in got if n not in names)
    if missing or extra:
        raise OutputMismatch(
            "; ".join(
                ([f"output {', '.join(missing)} missing"] if missing else [])
                + ([f"extra output {', '.join(extra)}"] if extra else [])
            )
        )
    planned = run_plan(g, [tuple(np.shape(x)) for x in inputs], [int(s) for s in scalars])
    out = []
    for name, t in zip(names, g.outputs):
        v = got[name]
        if isinstance(v, np.ndarray):  # a subclass's own type, comparison, mask or shape
            v = np.asarray(v)  # is not its values'
        if not isinstance(v, np.ndarray) or v.dtype.kind not in "iuO":
            kind = v.dtype.name if isinstance(v, np.ndarray) else type(v).__name__[:40]
            raise OutputMismatch(f"output {name} is {kind}, not an integer array")
        if v.dtype.kind == "O" and not (kinds := set(map(type, v.reshape(-1)))) <= INTEGERS:
            raise OutputMismatch(
                f"output {name} holds values that are not integers ("
                + ", ".join(sorted(k.__name__[:40] for k in kinds - INTEGERS)[:3])
                + ")"
            )
        if tuple(v.shape) != tuple(planned[t]):
            raise OutputMismatch(
                f"output {name} has shape {list(v.shape)}; the graph gives {list(planned[t])}"
            )
        out.append(v)
    return out
