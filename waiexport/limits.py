"""Which of a target's limits a node breaks (the last step of the rewrite manager): each a
:class:`Limit`, with its key, its words, and whether a target mapping at export handles it."""

from __future__ import annotations

from dataclasses import dataclass

from .bounds import NodeBounds
from .descriptions import CRD, Target
from .graph import Graph, Op
from .optable import info
from .profiles import RQ_OPS, npu_flags, rq_view

__all__ = ["Limit", "limits"]


@dataclass(frozen=True)
class Limit:
    """One limit of a target that a node breaks: ``key`` names the limit (the description's
    field), ``words`` say it for a person, and ``mapped`` says whether the exporter's target
    mappings (§9.4's informative ones, the general phase decomposition) handle it."""

    key: str
    words: str
    mapped: bool = False

    def __str__(self) -> str:
        return self.words


def limits(op: Op, nb: NodeBounds, g: Graph, t: Target) -> list[Limit]:
    """The limits of ``t`` that operator ``op`` (with its bounds ``nb``) breaks."""
    out = []
    if info(op.name).npu == "no" and t.subset == "npu":
        out.append(Limit("subset", f"{op.name} is outside wai-ops/1-npu"))
    if op.name == "conv_transpose" and not t.takes_transposed(op.params):
        if not t.transposed_conv:
            out.append(
                Limit(
                    "transposed_conv",
                    "no transposed-convolution unit, and the "
                    "output is not the stride times the input: the exporter's general "
                    "phase decomposition maps it",
                    mapped=True,
                )
            )
        else:
            out.append(
                Limit(
                    "transposed_strides",
                    f"transposed stride {op.params.sh}x{op.params.sw}: the unit takes "
                    f"{', '.join(map(str, t.transposed_strides))}, and the phase "
                    "rewrite (§9.3) does not apply",
                )
            )
    if op.name in ("conv", "conv_transpose") and t.max_in_channels:
        cin = g.tensor(op.inputs[0]).channels
        if cin > t.max_in_channels:
            out.append(
                Limit(
                    "max_in_channels",
                    f"{cin} input channels; the unit takes at most {t.max_in_channels}",
                )
            )
    if op.name == "lut16" and not t.table_lookup:
        out.append(Limit("table_lookup", "no table lookup: a unit must support it"))
    if op.name == "chscale" and not t.row_select:
        out.append(
            Limit("row_select", "no multiplier row chosen at run time: a unit must support it")
        )
    if "state_add" in npu_flags(op, g) and not t.state:
        out.append(Limit("state", "no value kept across decodes: a unit must support it"))
    if op.name == "pixel_shuffle" and t.depth_to_space != CRD:
        out.append(
            Limit(
                "depth_to_space",
                f"depth-to-space reads {t.depth_to_space}: a target "
                "mapping folds the permutation into the producer's channels (§9.4)",
                mapped=True,
            )
        )
    if op.name == "pad_rep" and "replicate" not in t.padding:
        out.append(
            Limit(
                "padding",
                "no replicate padding: a target mapping builds it from slices (§9.4)",
                mapped=True,
            )
        )
    mac = nb.result.mac
    if mac is not None:
        acts = t.act_bits or t.mac_bits
        over = [(b, acts) for b in mac.a_bits if b > acts]
        if mac.w_bits is not None and mac.w_bits > t.mac_bits:
            over.append((mac.w_bits, t.mac_bits))
        if over:
            widest, takes = max(over)
            out.append(
                Limit(
                    "mac_bits",
                    f"a multiply operand of {widest} bits; the MAC array "
                    f"takes {takes}"
                    + (
                        f": a target mapping splits it into {t.mac_bits}-bit digits"
                        if t.mac_digits
                        else ""
                    ),
                    mapped=t.mac_digits,
                )
            )
    if op.name in RQ_OPS or op.name == "chscale":
        rnd, mults, shifts, post = rq_view(op)
        if rnd not in t.roundings:
            with_m = " with a multiplier" if rnd == "floor" and mults.size else ""
            out.append(
                Limit(
                    "roundings", f"rounding {rnd}{with_m}; the unit rounds {', '.join(t.roundings)}"
                )
            )
        lo, hi = t.shift_range
        if int(shifts.min()) < lo or int(shifts.max()) > hi:
            bad = int(shifts.max()) if int(shifts.max()) > hi else int(shifts.min())
            out.append(Limit("shift_range", f"shift {bad} outside {lo}..{hi}"))
        mlo, mhi = t.mult_range
        if mults.size and (int(mults.min()) < mlo or int(mults.max()) > mhi):
            bad = int(mults.min()) if int(mults.min()) < mlo else int(mults.max())
            out.append(Limit("mult_range", f"multiplier {bad} outside {mlo}..{mhi}"))
        if post and not t.post_bias:
            out.append(Limit("post_bias", "a post bias; the unit adds none"))
    return out
