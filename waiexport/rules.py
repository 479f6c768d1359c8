"""The graph rules of §10.3, state rules included, and the exponent rules of §3 and §5.6:
load check step 6 (§10.5)."""

from __future__ import annotations

from .graph import Graph
from .refusal import Refusal

__all__ = ["check_rules"]


def _mismatch(where: str, detail: str) -> Refusal:
    return Refusal("model_mismatch", where, detail)


def check_rules(g: Graph) -> None:
    """Refuse ``g`` (``model_mismatch``) at the first graph, state or exponent rule it breaks."""
    tensors = g.tensors
    defined: set[int] = set()
    for i, inp in enumerate(g.inputs):
        if inp.tensor in defined:
            raise _mismatch(f"input {i}", f"tensor {inp.tensor} is already an input")
        defined.add(inp.tensor)
    for op in g.ops:
        where = f"operator {op.index} ({op.name})"
        for t in op.inputs:
            if t not in defined:
                raise _mismatch(
                    where,
                    f"reads tensor {t}, which is neither a graph input nor "
                    "the output of an earlier operator",
                )
        for t in op.outputs:
            if g.input_position(t) is not None:
                raise _mismatch(where, f"writes tensor {t}, which is a graph input")
            if t in defined:
                raise _mismatch(where, f"writes tensor {t}, which another operator writes")
            defined.add(t)
    for t in tensors:
        if t not in defined:
            raise _mismatch(f"tensor {t}", "is neither a graph input nor an operator's output")
    for i, inp in enumerate(g.inputs):
        rec = tensors[inp.tensor]
        if rec.policy not in ("check", "clamp"):
            raise _mismatch(
                f"input {i}",
                f"tensor {inp.tensor} has policy {rec.policy}; a graph input's is check or clamp",
            )
    if g.inputs[0].kind != "data":
        raise _mismatch("input 0", "is a state input; input 0 must be data")
    for i, inp in enumerate(g.inputs):
        if inp.kind == "state":
            _check_state(g, i, inp, tensors)
    for op in g.ops:
        _check_exponents(op, tensors)


def _check_state(g: Graph, i: int, inp, tensors) -> None:
    where = f"input {i} (state)"
    if inp.src >= len(g.outputs):
        raise _mismatch(where, f"src {inp.src} is out of range ({len(g.outputs)} outputs)")
    rec, fed = tensors[inp.tensor], tensors[g.outputs[inp.src]]
    if fed.channels != rec.channels:
        raise _mismatch(
            where, f"has {rec.channels} channels, its src output {inp.src} has {fed.channels}"
        )
    if not rec.lo <= inp.init <= rec.hi:
        raise _mismatch(where, f"init {inp.init} is outside its range [{rec.lo}, {rec.hi}]")


def _check_exponents(op, tensors) -> None:
    where = f"operator {op.index} ({op.name})"
    if op.name in ("add", "concat", "chunk_add"):
        exps = {tensors[t].exponent for t in op.inputs + op.outputs}
        if len(exps) > 1:
            shown = ", ".join(
                "none" if e is None else str(e)
                for e in sorted(exps, key=lambda e: (e is not None, e or 0))
            )
            raise _mismatch(
                where, f"its tensors' exponents differ ({shown}); §3 requires none or all equal"
            )
    elif op.name == "lut16":
        for side, declared, t in (
            ("e_in", op.params.e_in, op.inputs[0]),
            ("e_out", op.params.e_out, op.outputs[0]),
        ):
            if declared != tensors[t].exponent:
                raise _mismatch(
                    where,
                    f"{side} {declared} differs from tensor {t}'s exponent "
                    f"{tensors[t].exponent} (§5.6)",
                )
