"""Width classes (§7.1), the profiles' conditions (§7.2), and the accelerator subset's flags
and reasons (§9.2), as they apply to one node of the bounds pass."""

from __future__ import annotations

import numpy as np

from .bounds import NodeBounds
from .bounds.interval import fits_bits
from .graph import Graph
from .optable import info, named

__all__ = [
    "CLASS",
    "WIDTH",
    "PROFILES",
    "fits_class",
    "acc32_params",
    "npu_flags",
    "npu_reasons",
    "node_fits",
    "failing",
    "rq_view",
    "RQ_OPS",
]

PROFILES = ("acc32", "acc64")
#: The class of every named intermediate (§5, §7.1); producer results are ``tensor``.
CLASS = {
    **dict.fromkeys(
        [
            "conv.term",
            "conv.acc",
            "convT.term",
            "convT.acc",
            "rq.t",
            "rq.q",
            "rq.y",
            "mul.p",
            "gram.term",
            "gram.acc",
            "apply.term",
            "apply.acc",
            "leaky.p",
            "igdn.r",
            "ln.d",
            "rsq.num",
            "ln.k",
            "ln.n",
            "l2.k",
            "sm.diff",
            "sm.sum",
            "sm.num",
            "exp.negx",
            "exp.nl",
            "exp.t2",
            "exp.c",
            "sig.num",
        ],
        "acc",
    ),
    **dict.fromkeys(
        [
            "igdn.x2",
            "igdn.term",
            "igdn.N",
            "igdn.xr",
            "ln.S",
            "ln.m",
            "ln.T",
            "ln.v",
            "ln.dk",
            "ln.ng",
            "l2.T",
            "l2.vk",
            "elu.p",
        ],
        "wide",
    ),
    **dict.fromkeys(["rq.p", "igdn.gx2"], "product"),
}
#: Bits each class must fit under each profile (§7.1).
WIDTH = {
    "acc64": {"tensor": 64, "acc": 64, "wide": 128, "product": 128},
    "acc32": {"tensor": 32, "acc": 32, "wide": 32, "product": 64},
}
#: The operators that end in an ``rq`` (§5.1), from the operator table.
RQ_OPS = named("rq")


def fits_class(iv, cls: str, profile: str) -> bool:
    """Whether an interval of class ``cls`` meets ``profile``'s width."""
    return fits_bits(iv, WIDTH[profile][cls])


def _fit32(arr) -> bool:
    arr = np.asarray(arr)
    return arr.size == 0 or fits_bits((int(arr.min()), int(arr.max())), 32)


def acc32_params(op) -> list[str]:
    """The §7.2 parameter conditions ``op`` fails, in that table's order."""
    p, keys = op.params, []
    if op.name in RQ_OPS:
        rq = p.rq
        if not _fit32(rq.mult):
            keys.append("rq.mult")
        if int(rq.shift.max()) > 63:
            keys.append("rq.shift")
        if rq.bias_kind == "post" and not _fit32(rq.bias):
            keys.append("rq.post_bias")
    if op.name in ("conv", "conv_transpose") and not fits_bits(p.weight_range, 32):
        keys.append("weights")
    if op.name == "chscale":
        keys += ["chscale.m"] * (not _fit32(p.table)) + ["chscale.s"] * (p.shift > 63)
    if op.name == "igdn":
        keys += ["igdn.gamma"] * (not _fit32(p.gamma)) + ["igdn.shift"] * (max(p.gf, p.frac) > 63)
    if op.name == "leaky" and not fits_bits((p.a, p.a), 32):
        keys.append("leaky.a")
    return keys


def rq_view(op) -> tuple:
    """``(round, multipliers, shifts, post bias?)`` of an ``RQ``-bearing operator or a
    ``chscale`` (whose table rows are its multipliers)."""
    p = op.params
    if op.name == "chscale":
        return p.round, p.table.reshape(-1), np.array([p.shift]), False
    return p.rq.round, p.rq.mult, p.rq.shift, p.rq.bias_kind == "post"


def npu_flags(op, g: Graph) -> list[str]:
    """The node's §9.2 flags, in ascending order."""
    flags = set()
    if op.name in ("lut16", "chscale"):
        flags.add(op.name)
    if op.name in ("add", "chunk_add") and any(
        g.input_position(t) is not None and g.inputs[g.input_position(t)].kind == "state"
        for t in op.inputs
    ):
        flags.add("state_add")
    if op.name in RQ_OPS or op.name == "chscale":
        rnd, mult, shifts, post = rq_view(op)
        if rnd == "half_even":
            flags.add("rq_half_even")
        if rnd == "floor" and mult.size:
            flags.add("rq_floor_mult")
        if post:
            flags.add("rq_post_bias")
        if mult.size and int(mult.min()) < 0:
            flags.add("rq_neg_mult")
        if int(shifts.max()) > 31:
            flags.add("rq_shift_range")
    return sorted(flags)


def npu_reasons(op, g: Graph) -> list[str]:
    """The reasons ``op`` puts its graph outside ``wai-ops/1-npu``, besides ``acc32`` (§9.2)."""
    if info(op.name).npu == "no":
        return [f"op:{op.name}"]
    if op.name == "conv":
        cin, groups, cout = g.tensor(op.inputs[0]).channels, op.params.groups, op.params.cout
        if groups != 1 and (groups != cin or cout != cin):
            return ["conv_groups"]
    if op.name == "crop" and any(
        o.kind == 1 for o in (op.params.y0, op.params.x0, op.params.h, op.params.w)
    ):
        return ["crop_scalar"]
    return []


def node_fits(nb: NodeBounds, g: Graph, profile: str) -> bool:
    """§8.5: not saturated, every intermediate and producer result within its class's width,
    and for ``acc32`` no parameter condition failed and no output with policy ``check``."""
    if nb.saturated or failing(nb, profile):
        return False
    if profile == "acc32":
        return not acc32_params(nb.op) and not any(
            g.tensor(t).policy == "check" for t in nb.op.outputs
        )
    return True


def failing(nb: NodeBounds, profile: str) -> list[tuple[str, tuple]]:
    """The intermediates and producer results (``out.<k>``) that miss ``profile``'s width."""
    bad = [
        (k, iv)
        for k, iv in nb.result.intermediates.items()
        if not fits_class(iv, CLASS[k], profile)
    ]
    bad += [
        (f"out.{k}", iv)
        for k, iv in enumerate(nb.result.results)
        if not fits_class(iv, "tensor", profile)
    ]
    return bad
