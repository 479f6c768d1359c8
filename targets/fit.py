"""Which of a target's limits a node breaks, in words (the last step of the rewrite pipeline)."""

from __future__ import annotations

from waiexport.graph import Graph, Op
from waiexport.optable import info
from waiexport.profiles import RQ_OPS, rq_view

from .descriptions import CRD, Target

__all__ = ["limits"]


def limits(op: Op, node: dict, g: Graph, t: Target) -> list[str]:
    """The limits of ``t`` that operator ``op`` (with its certificate entry ``node``) breaks."""
    out = []
    if info(op.name).npu == "no" and t.subset == "npu":
        out.append(f"{op.name} is outside wai-ops/1-npu")
    if op.name == "conv_transpose" and not t.takes_transposed(op.params):
        if not t.transposed_conv:
            out.append("no transposed-convolution unit, and the output is not the stride times "
                       "the input: the exporter's general phase decomposition maps it")
        else:
            out.append(f"transposed stride {op.params.sh}x{op.params.sw}: the unit takes "
                       f"{', '.join(map(str, t.transposed_strides))}, and the phase rewrite "
                       "(§9.3) does not apply")
    if op.name in ("conv", "conv_transpose") and t.max_in_channels:
        cin = g.tensor(op.inputs[0]).channels
        if cin > t.max_in_channels:
            out.append(f"{cin} input channels; the unit takes at most {t.max_in_channels}")
    if op.name == "lut16" and not t.table_lookup:
        out.append("no table lookup: a unit must support it")
    if op.name == "chscale" and not t.row_select:
        out.append("no multiplier row chosen at run time: a unit must support it")
    if "state_add" in node["npu_flags"] and not t.state:
        out.append("no value kept across decodes: a unit must support it")
    if op.name == "pixel_shuffle" and t.depth_to_space != CRD:
        out.append(f"depth-to-space reads {t.depth_to_space}: a target mapping folds the "
                   "permutation into the producer's channels (§9.4)")
    if op.name == "pad_rep" and "replicate" not in t.padding:
        out.append("no replicate padding: a target mapping builds it from slices (§9.4)")
    if "mac" in node:
        widest = max(node["mac"]["a_bits"] + [node["mac"].get("w_bits", 0)])
        if widest > t.mac_bits:
            out.append(f"a multiply operand of {widest} bits; the MAC array takes {t.mac_bits}"
                       + (f": a target mapping splits it into {t.mac_bits}-bit digits"
                          if t.mac_digits else ""))
    if op.name in RQ_OPS or op.name == "chscale":
        rnd, mults, shifts, post = rq_view(op)
        if rnd not in t.roundings:
            with_m = " with a multiplier" if rnd == "floor" and mults.size else ""
            out.append(f"rounding {rnd}{with_m}; the unit rounds {', '.join(t.roundings)}")
        lo, hi = t.shift_range
        if int(shifts.min()) < lo or int(shifts.max()) > hi:
            out.append(f"shift {int(shifts.max()) if int(shifts.max()) > hi else int(shifts.min())}"
                       f" outside {lo}..{hi}")
        mlo, mhi = t.mult_range
        if mults.size and (int(mults.min()) < mlo or int(mults.max()) > mhi):
            bad = int(mults.min()) if int(mults.min()) < mlo else int(mults.max())
            out.append(f"multiplier {bad} outside {mlo}..{mhi}")
        if post and not t.post_bias:
            out.append("a post bias; the unit adds none")
    return out
