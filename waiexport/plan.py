"""Shape planning (§5 shape rules, §3 caps): at load (§10.5 step 7) and per decode (§4 run steps
1–3).

One shape function per operator, registered in :data:`SHAPES`. A shape is ``(C, H, W)``; at
load without declared sizes ``H`` and ``W`` are ``None`` and only the channel rules apply.
Each function first checks the sizes it forms against ``2^26`` (``too_large``), then its shape
rule; the planner turns a broken rule into ``model_mismatch`` at load and
``geometry_mismatch`` at run time, and checks every output against ``max_elems``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from .graph import Graph
from .params import Operand
from .refusal import Refusal

__all__ = [
    "SHAPES",
    "Shape",
    "ShapeCtx",
    "CAP",
    "load_plan",
    "run_plan",
    "check_inputs",
    "SIZED_REDUCTIONS",
]

CAP = 1 << 26
Shape = tuple  # (C, H, W); H and W None when unknown
#: Operators whose reduction length depends on the picture: their graphs declare sizes (§8.1).
SIZED_REDUCTIONS = ("gram", "l2norm", "softmax")


class _Cap(Exception):
    """A formed size past ``2^26`` (§3)."""


class _Rule(Exception):
    """A broken shape rule (§5)."""


@dataclass(frozen=True)
class ShapeCtx:
    """What a shape rule reads beside its inputs' shapes and its parameters: its outputs'
    channel counts, and how a crop's operands give its window (``crop_side``)."""

    out_channels: tuple
    crop_side: Callable[[Operand, Operand, int], tuple[int, int]]


SHAPES: dict[str, Callable] = {}


def _shape(*names):
    def register(fn):
        for name in names:
            SHAPES[name] = fn
        return fn

    return register


def _cap(value: int, what: str) -> None:
    if value > CAP:
        raise _Cap(f"{what} {value} passes 2^26")


def _need(ok: bool, detail: str) -> None:
    if not ok:
        raise _Rule(detail)


def _sized(shape: Shape) -> bool:
    return shape[1] is not None


@_shape(
    "rescale",
    "chscale",
    "lut16",
    "clamp",
    "relu",
    "leaky",
    "abs",
    "igdn",
    "layernorm_c",
    "l2norm",
    "softmax",
    "sigmoid",
    "elu",
)
def _same(p, ins, ctx):
    """Output shape is the input's (§5.4–§5.8)."""
    return [ins[0]]


@_shape("conv")
def _conv(p, ins, ctx):
    """§5.2: ``Ho = ⌊(H + 2ph − kh) / sh⌋ + 1``, ``Wo`` likewise."""
    ((c, h, w),) = ins
    if _sized(ins[0]):
        _cap(h + 2 * p.ph, "padded height")
        _cap(w + 2 * p.pw, "padded width")
    _need(c % p.groups == 0, f"input channels {c} are not a multiple of groups {p.groups}")
    _need(p.cout % p.groups == 0, f"cout {p.cout} is not a multiple of groups {p.groups}")
    if not _sized(ins[0]):
        return [(p.cout, None, None)]
    _need(
        h + 2 * p.ph >= p.kh and w + 2 * p.pw >= p.kw,
        f"kernel {p.kh}×{p.kw} is larger than the padded input {h + 2 * p.ph}×{w + 2 * p.pw}",
    )
    return [(p.cout, (h + 2 * p.ph - p.kh) // p.sh + 1, (w + 2 * p.pw - p.kw) // p.sw + 1)]


@_shape("conv_transpose")
def _conv_transpose(p, ins, ctx):
    """§5.3: uncropped sides ``(H − 1)·sh + kh + oph`` checked first, then ``Ho = uh − 2ph ≥ 1``."""
    ((c, h, w),) = ins
    if not _sized(ins[0]):
        return [(p.cout, None, None)]
    uh = (h - 1) * p.sh + p.kh + p.oph
    uw = (w - 1) * p.sw + p.kw + p.opw
    _cap(uh, "uncropped height")
    _cap(uw, "uncropped width")
    _cap(p.cout * uh * uw, "uncropped output")
    ho, wo = uh - 2 * p.ph, uw - 2 * p.pw
    _need(ho >= 1 and wo >= 1, f"output {ho}×{wo} is empty (padding {p.ph}, {p.pw})")
    return [(p.cout, ho, wo)]


@_shape("add")
def _add(p, ins, ctx):
    """§5.5: ``a`` and ``b`` have the same shape."""
    _need(ins[0] == ins[1], f"operands {_fmt(ins[0])} and {_fmt(ins[1])} differ")
    return [ins[0]]


@_shape("mul")
def _mul(p, ins, ctx):
    """§5.4: ``b`` is ``[C, H, W]`` or ``[1, H, W]``."""
    (c, h, w), (cb, hb, wb) = ins
    _need(cb in (c, 1) and (hb, wb) == (h, w), f"b {_fmt(ins[1])} does not fit a {_fmt(ins[0])}")
    return [ins[0]]


@_shape("concat")
def _concat(p, ins, ctx):
    """§5.10: inputs share ``H`` and ``W``; channels add up."""
    _need(len({s[1:] for s in ins}) == 1, "inputs differ in H or W: " + ", ".join(map(_fmt, ins)))
    return [(sum(s[0] for s in ins),) + ins[0][1:]]


@_shape("chunk_add")
def _chunk_add(p, ins, ctx):
    """§5.5: ``C`` even → ``C/2``."""
    c = ins[0][0]
    _need(c % 2 == 0, f"{c} channels are not even")
    return [(c // 2,) + ins[0][1:]]


@_shape("split")
def _split(p, ins, ctx):
    """§5.10: ``start + count ≤ C``."""
    c = ins[0][0]
    _need(p.start + p.count <= c, f"start {p.start} + count {p.count} passes {c} channels")
    return [(p.count,) + ins[0][1:]]


@_shape("pixel_shuffle")
def _pixel_shuffle(p, ins, ctx):
    """§5.10: ``C`` a multiple of ``r²`` → ``[C/r², H·r, W·r]``."""
    ((c, h, w),) = ins
    if _sized(ins[0]):
        _cap(h * p.r, "output height")
        _cap(w * p.r, "output width")
    _need(c % (p.r * p.r) == 0, f"{c} channels are not a multiple of r² = {p.r * p.r}")
    c_out = c // (p.r * p.r)
    return [(c_out, h * p.r, w * p.r) if _sized(ins[0]) else (c_out, None, None)]


@_shape("pixel_unshuffle")
def _pixel_unshuffle(p, ins, ctx):
    """§5.10: ``H`` and ``W`` multiples of ``r`` → ``[C·r², H/r, W/r]``."""
    ((c, h, w),) = ins
    if not _sized(ins[0]):
        return [(c * p.r * p.r, None, None)]
    _need(h % p.r == 0 and w % p.r == 0, f"{h}×{w} is not a multiple of r = {p.r}")
    return [(c * p.r * p.r, h // p.r, w // p.r)]


@_shape("pad_rep")
def _pad_rep(p, ins, ctx):
    """§5.10: ``[C, ⌈H/m⌉·m, ⌈W/m⌉·m]``."""
    ((c, h, w),) = ins
    if not _sized(ins[0]):
        return [ins[0]]
    ho, wo = -(-h // p.m) * p.m, -(-w // p.m) * p.m
    _cap(ho, "output height")
    _cap(wo, "output width")
    return [(c, ho, wo)]


@_shape("crop_to")
def _crop_to(p, ins, ctx):
    """§5.10: ``ref``'s ``H′ ≤ H`` and ``W′ ≤ W`` → ``[C, H′, W′]``."""
    (c, h, w), (_, hr, wr) = ins
    if not _sized(ins[0]):
        return [(c, None, None)]
    _need(hr <= h and wr <= w, f"ref {hr}×{wr} is larger than the input {h}×{w}")
    return [(c, hr, wr)]


@_shape("crop")
def _crop(p, ins, ctx):
    """§5.10: ``y0, x0 ≥ 0``, ``h, w ≥ 1``, ``y0 + h ≤ H``, ``x0 + w ≤ W``."""
    ((c, h, w),) = ins
    if not _sized(ins[0]):
        return [ins[0]]
    y0, hh = ctx.crop_side(p.y0, p.h, h)
    x0, ww = ctx.crop_side(p.x0, p.w, w)
    _need(y0 >= 0 and x0 >= 0, f"start ({y0}, {x0}) is negative")
    _need(hh >= 1 and ww >= 1, f"size {hh}×{ww} is empty")
    _need(
        y0 + hh <= h and x0 + ww <= w,
        f"window at ({y0}, {x0}) of {hh}×{ww} passes the input {h}×{w}",
    )
    return [(c, hh, ww)]


@_shape("subpos_split")
def _subpos_split(p, ins, ctx):
    """§5.10: ``H`` and ``W`` even → four ``[C, H/2, W/2]``."""
    ((c, h, w),) = ins
    if not _sized(ins[0]):
        return [ins[0]] * 4
    _need(h % 2 == 0 and w % 2 == 0, f"{h}×{w} is not even")
    return [(c, h // 2, w // 2)] * 4


@_shape("subpos_merge")
def _subpos_merge(p, ins, ctx):
    """§5.10: four ``[C, H, W]`` → ``[C, 2H, 2W]``."""
    (c, h, w) = ins[0]
    if _sized(ins[0]):
        _cap(2 * h, "output height")
        _cap(2 * w, "output width")
    _need(len(set(ins)) == 1, "inputs differ: " + ", ".join(map(_fmt, ins)))
    return [(c, 2 * h, 2 * w) if _sized(ins[0]) else ins[0]]


@_shape("fill")
def _fill(p, ins, ctx):
    """§5.10: channels from the output's record, ``H`` and ``W`` from the input."""
    return [(ctx.out_channels[0],) + ins[0][1:]]


@_shape("gram")
def _gram(p, ins, ctx):
    """§5.9: ``A`` and ``B`` both ``[C, H, W]``, ``C`` a multiple of ``groups`` → ``[C, 1, d]``."""
    _need(ins[0] == ins[1], f"A {_fmt(ins[0])} and B {_fmt(ins[1])} differ")
    c = ins[0][0]
    _need(c % p.groups == 0, f"{c} channels are not a multiple of groups {p.groups}")
    return [(c, 1, c // p.groups) if _sized(ins[0]) else (c, None, None)]


@_shape("apply")
def _apply(p, ins, ctx):
    """§5.9: ``A [C, 1, d]`` and ``V [C, H, W]`` with ``C = groups·d`` → ``[C, H, W]``."""
    (ca, ha, wa), (cv, hv, wv) = ins
    _need(ca == cv, f"A has {ca} channels, V has {cv}")
    _need(cv % p.groups == 0, f"{cv} channels are not a multiple of groups {p.groups}")
    if _sized(ins[0]):
        _need(
            ha == 1 and wa == cv // p.groups,
            f"A is {_fmt(ins[0])}, expected [{cv}, 1, {cv // p.groups}]",
        )
    return [ins[1]]


def _fmt(shape: Shape) -> str:
    return "[" + ", ".join("?" if v is None else str(v) for v in shape) + "]"


def _walk(g: Graph, env: dict, crop_side, rule_code: str) -> dict:
    """Plan every operator in graph order on ``env`` (tensor → shape), adding its outputs."""
    for op in g.ops:
        where = f"operator {op.index} ({op.name})"
        outs_rec = [g.tensor(t) for t in op.outputs]
        ctx = ShapeCtx(tuple(r.channels for r in outs_rec), crop_side)
        try:
            outs = SHAPES[op.name](op.params, [env[t] for t in op.inputs], ctx)
        except _Cap as e:
            raise Refusal("too_large", where, str(e)) from None
        except _Rule as e:
            raise Refusal(rule_code, where, str(e)) from None
        for slot, (t, rec, shape) in enumerate(zip(op.outputs, outs_rec, outs)):
            if shape[0] != rec.channels:
                raise Refusal(
                    "model_mismatch",
                    where,
                    f"output {slot} has {shape[0]} channels; its tensor {t} records {rec.channels}",
                )
            if _sized(shape) and shape[0] * shape[1] * shape[2] > g.max_elems:
                raise Refusal(
                    "too_large",
                    where,
                    f"output {slot} {_fmt(shape)} passes max_elems {g.max_elems}",
                )
            env[t] = shape
    return env


def load_plan(g: Graph) -> dict | None:
    """§10.5 step 7: every operator's channel counts, then, when the inputs declare their
    sizes, every shape planned on ``max_h`` and ``max_w``. Returns the planned shapes, or
    ``None`` when the graph declares no sizes. Raises :class:`Refusal` (``model_mismatch``, or
    ``too_large`` for a size past a cap)."""

    def crop_side(start, length, size):
        s0 = start.value if start.kind == 0 else 0
        if length.kind == 0:
            return s0, length.value
        return s0, min(g.scalars[length.value].hi, size - s0)

    env = {inp.tensor: (g.tensor(inp.tensor).channels, None, None) for inp in g.inputs}
    _walk(g, env, crop_side, "model_mismatch")
    if not g.declares_sizes:
        for op in g.ops:
            if op.name in SIZED_REDUCTIONS:
                raise Refusal(
                    "model_mismatch",
                    f"operator {op.index} ({op.name})",
                    "its reduction length depends on the picture, and the inputs do "
                    "not declare their sizes (§8.1)",
                )
        return None
    env = {}
    for i, inp in enumerate(g.inputs):
        shape = (g.tensor(inp.tensor).channels, inp.max_h, inp.max_w)
        if shape[0] * shape[1] * shape[2] > g.max_elems:
            raise Refusal(
                "too_large",
                f"input {i}",
                f"declared size {_fmt(shape)} passes max_elems {g.max_elems}",
            )
        env[inp.tensor] = shape
    return _walk(g, env, crop_side, "model_mismatch")


def check_inputs(g: Graph, shapes: Sequence[Shape]) -> dict:
    """§4 run step 1: each input's shape, one at a time in table order, state inputs
    included; no value is read, so it runs before anything is allocated. Returns each
    input tensor's shape."""
    env = {}
    for i, (inp, shape) in enumerate(zip(g.inputs, shapes)):
        c, h, w = shape
        where = f"input {i}"
        if c != g.tensor(inp.tensor).channels or h < 1 or w < 1:
            raise Refusal(
                "model_mismatch",
                where,
                f"shape {_fmt(shape)} does not fit its {g.tensor(inp.tensor).channels} channels",
            )
        if inp.max_h and (h > inp.max_h or w > inp.max_w):
            raise Refusal(
                "too_large", where, f"{h}×{w} passes the declared {inp.max_h}×{inp.max_w}"
            )
        if c * h * w > g.max_elems:
            raise Refusal("too_large", where, f"{_fmt(shape)} passes max_elems {g.max_elems}")
        env[inp.tensor] = (c, h, w)
    return env


def run_plan(g: Graph, shapes: Sequence[Shape], scalars: Sequence[int]) -> dict:
    """§4 run steps 1–3 for one decode.

    Parameters
    ----------
    g : Graph
        A graph that loaded.
    shapes : sequence of (C, H, W)
        Every input's shape, state inputs included, in input-table order.
    scalars : sequence of int
        Every scalar's value, in scalar-table order.

    Returns
    -------
    dict
        Every tensor's shape.

    Raises
    ------
    Refusal
        ``model_mismatch``, ``too_large``, ``field_range`` or ``geometry_mismatch``, the first
        that applies in §4's order. ``ValueError`` when the counts of ``shapes`` or
        ``scalars`` are not the graph's.
    """
    if len(shapes) != len(g.inputs) or len(scalars) != len(g.scalars):
        raise ValueError(
            f"expected {len(g.inputs)} input shapes and {len(g.scalars)} scalars, "
            f"got {len(shapes)} and {len(scalars)}"
        )
    env = check_inputs(g, shapes)
    for j, (s, v) in enumerate(zip(g.scalars, scalars)):
        if not s.lo <= v <= s.hi:
            raise Refusal("field_range", f"scalar {j}", f"{v} is outside [{s.lo}, {s.hi}]")

    def crop_side(start, length, size):
        return tuple(o.value if o.kind == 0 else scalars[o.value] for o in (start, length))

    return _walk(g, env, crop_side, "geometry_mismatch")
