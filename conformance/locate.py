"""Locating a difference: the first operator whose output an engine computes otherwise than
the reference, the first node inside that operator's lowering whose value differs from an
independent evaluation of the same model (where the engine runs a model), and a diagnosis
(:mod:`.diagnose`) of what the differing elements share."""

from __future__ import annotations

import numpy as np

from waiexport.reference import decode
from waiexport.optable import info
from waiexport.reference.arrays import rround
from waiexport.reference.ops import REFERENCE, OpCtx
from waiexport.refusal import Refusal

from .diagnose import float32_values, magnitude, nearest, ties

__all__ = ["locate", "sentence"]


def _rounding_of(op, env, scalars, g):
    """The reference's last ``(p, s, mode)`` for operator ``op`` on these inputs, heard by
    a spy in the operator context's rounding hook."""
    captured: list = []

    def spy(p, s, mode):
        captured.append((np.asarray(p), np.asarray(s), mode))
        return rround(p, s, mode)

    REFERENCE[op.name](
        op.params,
        [env[t] for t in op.inputs],
        OpCtx(tuple(scalars), tuple(g.tensor(t).channels for t in op.outputs), rounding=spy),
    )
    return captured[-1]


def _operator_diagnosis(op, want, got, env, scalars, g) -> dict:
    delta = got.astype(object) - want.astype(object)
    mask = (delta != 0).astype(bool)
    out = {"differing": int(mask.sum()), "of": int(mask.size)}
    if info(op.name).rounds:
        p, s, mode = _rounding_of(op, env, scalars, g)
        p = np.broadcast_to(p, want.shape)
        on_tie, pattern = ties(p, s, mode, delta, mask)
        if mode != "floor":
            out["on_a_tie"] = on_tie
        out["diagnosis"] = (
            pattern or nearest(p, s, mode, delta, mask) or magnitude(p, delta, mask, s, mode)
        )
    else:
        out["diagnosis"] = float32_values(want, delta, mask)
    return out


def _node(inside, op_index, inputs, scalars) -> dict | None:
    """The first node of the operator's lowering whose value the engine computes otherwise
    than onnx's reference evaluator, with the pattern of its differences."""
    for name, op_type, pairs in inside(op_index, inputs, scalars):
        for want, got in pairs:
            a, b = np.asarray(want).astype(object), np.asarray(got).astype(object)
            if a.shape != b.shape:
                return {"name": name, "op_type": op_type, "shape": [list(a.shape), list(b.shape)]}
            mask = (a != b).astype(bool)
            if mask.any():
                return {
                    "name": name,
                    "op_type": op_type,
                    "differing": int(mask.sum()),
                    "of": int(mask.size),
                    "diagnosis": magnitude(a, b - a, mask),
                }
    return None


def locate(loaded, inputs, scalars, rounding=None) -> dict | None:
    """The first operator (graph order) whose output ``loaded`` computes otherwise than the
    reference on the same decode, or ``None`` when it cannot tell; ``rounding`` is the
    reference's rounding hook (:func:`waiexport.reference.decode`), for a test that makes the
    reference the side that differs."""
    if loaded.run_all is None:
        return None
    g = loaded.graph
    try:
        want = decode(g, inputs, scalars, keep=True, rounding=rounding)
        got = loaded.run_all(inputs, scalars)
    except Refusal:
        return None
    if not isinstance(got, dict):  # an engine's mistake: nothing to tell by
        return None
    for op in g.ops:
        for slot, t in enumerate(op.outputs):
            a, b = want[t], got.get(t)
            b = np.asarray(b) if isinstance(b, np.ndarray) else None  # as validate reads it
            if b is not None and a.shape == b.shape and (a == b).all():
                continue
            found = {"operator": op.index, "op": op.name, "output": slot}
            if b is not None and a.shape == b.shape:
                found.update(_operator_diagnosis(op, a, b, want, scalars, g))
            if loaded.inside is not None:
                found["node"] = _node(loaded.inside, op.index, inputs, scalars)
            if op.index in loaded.known:
                found["diagnosis"] = loaded.known[op.index]
            return found
    return None


def sentence(found: dict | None) -> str:
    """What :func:`locate` found, as one sentence."""
    if found is None:
        return (
            "no operator could be located (the engine exposes no intermediates, or every "
            "intermediate agrees)"
        )
    text = f"operator {found['operator']} ({found['op']}) output {found['output']} differs"
    if "differing" in found:
        text += f" at {found['differing']} of {found['of']} elements"
        if "on_a_tie" in found:
            text += f", {found['on_a_tie']} of them on a rounding tie"
    node = found.get("node")
    if node:
        text += (
            f"; inside its lowering the first node that differs from onnx's reference "
            f"evaluator is {node['op_type']} {node['name']}"
        )
        if "differing" in node:
            text += f" ({node['differing']} of {node['of']} elements)"
            if node["diagnosis"]:
                text += f": {node['diagnosis']}"
    elif "node" in found:
        text += "; every node of its lowering agrees with onnx's reference evaluator"
    text += (
        f"; diagnosis: {found['diagnosis']}"
        if found.get("diagnosis")
        else "; diagnosis: none of the known patterns"
    )
    return text + "."
