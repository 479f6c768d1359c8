"""What ``waiexport inspect`` prints: a WHG1 graph's tables, operators and planned shapes, as
text for a person or as JSON (integers as decimal strings, as §8.5 writes them)."""

from __future__ import annotations

import dataclasses
import hashlib
from fractions import Fraction

import numpy as np

from waiexport.graph import Graph
from waiexport.params import RQ, Operand, Params
from waiexport.plan import load_plan

__all__ = ["describe", "render_text"]


def _array(arr: np.ndarray, width: int | None) -> dict:
    out = {"shape": [str(n) for n in arr.shape]}
    if width:
        out["bytes"] = str(width)
    if arr.size:
        out["min"], out["max"] = str(int(arr.min())), str(int(arr.max()))
    return out


_WIDTH_OF = {
    "weights": "w_bytes",
    "table": "m_bytes",
    "gamma": "g_bytes",
    "mult": "m_bytes",
    "bias": "b_bytes",
}


def _params(p: Params) -> dict:
    """Every parameter field: integers as strings, arrays summarised by shape, width and range."""
    values = vars(p)
    out = {}
    for f in dataclasses.fields(p):
        v = values[f.name]
        if isinstance(v, np.ndarray):
            out[f.name] = _array(v, values.get(_WIDTH_OF.get(f.name, "")))
        elif isinstance(v, (RQ, Operand)):
            out[f.name] = _params(v)
        elif isinstance(v, tuple):
            out[f.name] = [str(x) for x in v]
        elif v is None or isinstance(v, str):
            out[f.name] = v
        else:
            out[f.name] = str(v)
    return out


def _side(values: list[int], sizes: list[int], name: str) -> str | None:
    """``values`` (a tensor's side at each input side in ``sizes``) as ``aX + b`` in the
    input side ``name``, when one such line passes through every point and holds for every
    side (an integer slope, or a fraction with no offset: a side the plan divides)."""
    (x0, y0), (x1, y1) = zip(sizes[:2], values[:2])
    a = Fraction(y1 - y0, x1 - x0)
    b = y0 - a * x0
    if (
        any(a * x + b != y for x, y in zip(sizes, values))
        or b.denominator != 1
        or (a.denominator != 1 and b)
    ):  # a floor of a fraction: no one line for every side
        return None
    if a == 0:
        return str(int(b))
    term = (
        name
        if a == 1
        else f"{a.numerator}{name}"
        if a.denominator == 1
        else f"{name}/{a.denominator}"
        if a.numerator == 1
        else f"{a.numerator}{name}/{a.denominator}"
    )
    return term + (f"{int(b):+d}" if b else "")


def symbolic_shapes(g: Graph) -> dict:
    """Every tensor's shape in the data inputs' sides ``H`` and ``W``, for a graph whose
    inputs declare no sizes: planned on a few sides the strides divide, each side written as
    ``aH + b`` where one such line fits them all; ``?`` where none does."""
    from waiexport.plan import run_plan
    from waiexport.refusal import Refusal

    sizes = [64, 128, 192]
    plans = []
    for h, w in [
        (sizes[0], sizes[0]),
        (sizes[1], sizes[0]),
        (sizes[2], sizes[0]),
        (sizes[0], sizes[1]),
        (sizes[0], sizes[2]),
    ]:
        shapes = [(g.tensor(i.tensor).channels, h, w) for i in g.inputs]
        try:
            plans.append(run_plan(g, shapes, [s.lo for s in g.scalars]))
        except (Refusal, ValueError):
            return {}
    out = {}
    for t in plans[0]:
        c = plans[0][t][0]
        hs = _side([plans[k][t][1] for k in (0, 1, 2)], sizes, "H")
        ws = _side([plans[k][t][2] for k in (0, 3, 4)], sizes, "W")
        out[t] = (str(c), hs or "?", ws or "?")
    return out


def describe(g: Graph, data: bytes | None = None) -> dict:
    """A JSON-ready description of ``g``: header, tables, tensors with their planned shapes
    (when the inputs declare sizes; else in the inputs' sides ``H`` and ``W``), operators
    with their parameters summarised."""
    shapes = load_plan(g) or symbolic_shapes(g)
    out: dict = {}
    if data is not None:
        out["bytes"] = str(len(data))
        out["sha256"] = hashlib.sha256(data).hexdigest()
    out["max_elems"] = str(g.max_elems)
    out["inputs"] = [
        {"tensor": str(i.tensor), "kind": i.kind, "max_h": str(i.max_h), "max_w": str(i.max_w)}
        | ({"src": str(i.src), "init": str(i.init)} if i.kind == "state" else {})
        for i in g.inputs
    ]
    out["scalars"] = [{"lo": str(s.lo), "hi": str(s.hi)} for s in g.scalars]
    out["outputs"] = [str(t) for t in g.outputs]
    out["tensors"] = [
        {
            "index": str(t),
            "channels": str(r.channels),
            "exponent": None if r.exponent is None else str(r.exponent),
            "policy": r.policy,
            # a derived tensor's range is the bounds pass's, not the file's (§10.2): none here
            "lo": None if r.policy == "derived" else str(r.lo),
            "hi": None if r.policy == "derived" else str(r.hi),
            "shape": [str(v) for v in shapes[t]] if t in shapes else None,
        }
        for t, r in g.tensors.items()
    ]
    out["operators"] = [
        {
            "index": str(op.index),
            "op": op.name,
            "inputs": [str(t) for t in op.inputs],
            "outputs": [str(t) for t in op.outputs],
            "params": _params(op.params),
        }
        for op in g.ops
    ]
    return out


def _fmt_params(p: dict) -> str:
    parts = []
    for k, v in p.items():
        if isinstance(v, dict) and "shape" in v:
            if v["shape"] == ["0"]:
                continue
            rng = f" in [{v['min']}, {v['max']}]" if "min" in v else ""
            width = f" i{8 * int(v['bytes'])}" if "bytes" in v else ""
            parts.append(f"{k}{width}[{'×'.join(v['shape'])}]{rng}")
        elif isinstance(v, dict):
            parts.append(f"{k}({_fmt_params(v)})")
        elif isinstance(v, list):
            parts.append(f"{k}=({', '.join(v)})")
        elif v is not None and not k.endswith(("_bytes", "m_kind", "s_kind")):
            parts.append(f"{k}={v}")
    return ", ".join(parts)


def render_text(d: dict, name: str) -> str:
    """The description ``d`` as a short report for a person."""
    lines = [
        f"{name}: WHG1 v1, wai-ops/1"
        + (f", {d['bytes']} bytes, sha256 {d['sha256']}" if "bytes" in d else "")
    ]
    lines.append(
        f"  max_elems {d['max_elems']}; {len(d['inputs'])} inputs, {len(d['outputs'])} "
        f"outputs, {len(d['scalars'])} scalars, {len(d['tensors'])} tensors, "
        f"{len(d['operators'])} operators"
    )
    tensors = {t["index"]: t for t in d["tensors"]}

    def rng(t):
        return "" if t["policy"] == "derived" else f" [{t['lo']}, {t['hi']}]"

    def shape(t):
        return "[" + ", ".join(t["shape"]) + "]" if t["shape"] else f"[{t['channels']}, H, W]"

    lines.append("inputs")
    for i, inp in enumerate(d["inputs"]):
        t = tensors[inp["tensor"]]
        size = f" up to {inp['max_h']}×{inp['max_w']}" if inp["max_h"] != "0" else ""
        state = (
            f", fed by output {inp['src']}, init {inp['init']}" if inp["kind"] == "state" else ""
        )
        lines.append(
            f"  {i}: tensor {inp['tensor']} {inp['kind']} {t['channels']} channels{size}, "
            f"{t['policy']}{rng(t)}{state}"
        )
    if d["scalars"]:
        lines.append("scalars")
        lines += [f"  {j}: [{s['lo']}, {s['hi']}]" for j, s in enumerate(d["scalars"])]
    lines.append("operators")
    for op in d["operators"]:
        outs = ", ".join(
            f"{t} {shape(tensors[t])} {tensors[t]['policy']}{rng(tensors[t])}"
            for t in op["outputs"]
        )
        lines.append(f"  {op['index']}: {op['op']}({', '.join(op['inputs'])}) -> {outs}")
        if op["params"]:
            lines.append(f"       {_fmt_params(op['params'])}")
    lines.append("outputs")
    lines += [f"  {k}: tensor {t} {shape(tensors[t])}" for k, t in enumerate(d["outputs"])]
    lines.append("tensors")
    lines += [
        f"  {t['index']}: {shape(t)} {t['policy']}{rng(t)}"
        + ("" if t["exponent"] is None else f", exponent {t['exponent']}")
        for t in d["tensors"]
    ]
    return "\n".join(lines)
