"""The ``int_synth/1`` lowering (§13.1): ``int_synth.json`` to the canonical ``synth`` graph.

Every refusal is ``payload_malformed`` (§4: ``wai.neural.int_synth`` reports that code for
every refusal), with the load checks of §13.1 in their order.
"""

from __future__ import annotations

import numpy as np

from waiexport.builder import GraphBuilder, conv_transpose, rq
from waiexport.certificate import Member, verdict_of
from waiexport.graph import Graph
from waiexport.params import Clamp
from waiexport.refusal import Refusal
from waiexport.whg1 import write

from .source import Source

__all__ = ["lower_int_synth", "ROLE", "CAPABILITY", "LOWERING"]

ROLE, CAPABILITY, LOWERING = "synth", "wai.neural.int_synth", "int_synth/1"
_U32 = (0, (1 << 32) - 1)
_I32 = (-(1 << 31), (1 << 31) - 1)


def lower_int_synth(data: bytes) -> Graph:
    """The ``synth`` graph of an ``int_synth.json`` file (§13.1, §13.0)."""
    src = Source(data, "int_synth.json", "payload_malformed")
    layers = src.member(src.doc, "layers", "int_synth.json")
    if not isinstance(layers, list) or not layers:
        raise src.refuse("layers", "there must be at least one layer")
    specs = []
    for n, layer in enumerate(layers):
        where = f"layers[{n}]"
        if not isinstance(layer, dict):
            raise src.refuse(where, "is not an object")
        spec = {
            k: src.integer(src.member(layer, k, where), f"{where}.{k}", *_U32)
            for k in ("in_ch", "out_ch", "k", "stride", "pad")
        }
        spec["out_pad"] = src.integer(layer.get("out_pad", 0), f"{where}.out_pad", *_U32)
        spec["shift"] = src.integer(layer.get("shift", 0), f"{where}.shift", *_U32)
        relu = layer.get("relu", False)
        if not isinstance(relu, bool):
            raise src.refuse(f"{where}.relu", f"{relu!r} is not true or false")
        spec["relu"] = relu
        specs.append((spec, layer, where))
    for n, (spec, _, where) in enumerate(specs):  # the layers chain
        if n and spec["in_ch"] != specs[n - 1][0]["out_ch"]:
            raise src.refuse(
                f"{where}.in_ch",
                f"{spec['in_ch']} does not follow the previous "
                f"layer's out_ch {specs[n - 1][0]['out_ch']}",
            )
    weights = []
    for spec, layer, where in specs:  # the parameter lengths are exact
        shape = (spec["in_ch"], spec["out_ch"], spec["k"], spec["k"])
        if spec["in_ch"] * spec["out_ch"] * spec["k"] * spec["k"] > 1 << 26:
            raise src.refuse(f"{where}.weight", "more weights than the caps allow (§3)")
        w = src.nested(src.member(layer, "weight", where), shape, f"{where}.weight", *_I32)
        b = src.integers(src.member(layer, "bias", where), f"{where}.bias", spec["out_ch"], *_I32)
        weights.append((np.array(w, dtype=np.int64).reshape(shape), b))
    for spec, _, where in specs:  # the ranges
        for key, floor in (("out_ch", 1), ("k", 1), ("stride", 1)):
            if spec[key] < floor:
                raise src.refuse(f"{where}.{key}", f"{key} is 0")
        if spec["shift"] > 127:
            raise src.refuse(f"{where}.shift", f"shift {spec['shift']} is above 127")
    b = GraphBuilder()
    t = b.input(specs[0][0]["in_ch"], -128, 127)
    for (spec, _, _), (w, bias) in zip(specs, weights):
        t = b.op(
            "conv_transpose",
            t,
            conv_transpose(
                w,
                stride=spec["stride"],
                pad=spec["pad"],
                out_pad=spec["out_pad"],
                w_bytes=4,
                rq=rq(shift=spec["shift"], bias=bias, b_bytes=4),
            ),
        )
        if spec["relu"]:
            t = b.op("relu", t)
    b.output(b.op("clamp", t, Clamp(0, 255)))
    try:
        graph = b.build()  # the caps (§3) and the plan
    except Refusal as r:
        raise src.refuse(r.where, r.detail) from None
    if not verdict_of([Member.of(ROLE, write(graph), graph)])["acc64"]:
        raise src.refuse("int_synth.json", "the certificate does not meet acc64")
    return graph
