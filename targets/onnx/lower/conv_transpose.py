"""``conv_transpose`` (§5.3) by the general phase decomposition (§9.3), for any stride,
padding and output padding: every phase ``ρ`` is a stride-1 convolution with its flipped
sub-kernel, all phases are one ``ConvInteger`` sum (as output channels), the requantisation
follows (int32 where the certificate allows, :func:`..requant.width`), the output's ``clamp``
policy is applied, and the phases are interleaved (as int8 when the output is certified
int8, :func:`._common.depth_to_space`). Where the stride reaches past the kernel, the
interleave holds the reached residues only, and the output's rows or columns are gathered
from it or from ``rq_o(0)`` (:func:`_gathered`); elsewhere it is the uncropped plane, cropped
to ``[ph, ph + Ho)`` with ``Ho`` from the input's run-time shape."""

from typing import NamedTuple

import numpy as np
from waiexport.reference.rq import rq

from waiexport.graph import Op

from ...lowering import Names
from ..emit import I64, Emitter
from ..mac import mac_sum
from ..requant import requantise, room, rq_args, width
from ._common import LowerCtx, clip, depth_to_space, fits_i8, stored


def phase_weights(w: np.ndarray, sh: int, sw: int) -> np.ndarray:
    """``[cout·rh·rw, cin, th, tw]`` for the residues some tap reaches (``rh = min(sh, kh)``,
    ``rw = min(sw, kw)``): channel ``o·rh·rw + ρy·rw + ρx`` holds the sub-kernel
    ``W[ci][o][ρy + sh·t][ρx + sw·t′]`` flipped, aligned to the bottom-right, so that a
    correlation padded by ``th − 1`` above computes ``Z_ρ[a] = Σ_t W[ρ + s·t]·X̃[a − t]``.
    Residues no tap reaches hold ``rq_o(0)`` and need no weights, so the size follows the
    kernel, never the stride."""
    cin, cout, kh, kw = w.shape
    th, tw = -(-kh // sh), -(-kw // sw)
    rh, rw = min(sh, kh), min(sw, kw)
    out = np.zeros((cout, rh, rw, cin, th, tw), dtype=np.int64)
    for ry in range(rh):
        for rx in range(rw):
            sub = w[:, :, ry::sh, rx::sw][:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
            out[:, ry, rx, :, th - sub.shape[2] :, tw - sub.shape[3] :] = sub
    return out.reshape(cout * rh * rw, cin, th, tw)


def _unreached(p, out) -> np.ndarray:
    """What a residue no tap reaches holds, ``[1, cout, 1, 1]``: ``rq_o(0)``, clamped where
    the output's policy clamps."""
    fill = rq(np.zeros((p.cout, 1, 1), dtype=np.int64), p.rq).astype(np.int64)
    fill = fill.reshape(1, -1, 1, 1)
    return np.clip(fill, out.lo, out.hi) if out.policy == "clamp" else fill


class _Side(NamedTuple):
    """One axis of the output: the input's run-time ``size`` and ``end = pad + Ho`` (each a
    1-element int64), the stride ``s``, the residues a tap reaches ``r``, the crop ``pad``,
    and ``below``, the phase rows past the input's (``A = size + below``)."""

    size: str
    end: str
    s: int
    r: int
    pad: int
    below: int


def _side(e, size: str, s: int, k: int, op: int, pad: int, below: int) -> _Side:
    end = e.node("Add", [e.times(size, s), e.const([k + op - pad - s], I64)])
    return _Side(size, end, s, min(s, k), pad, below)


def _gathered(e, y, axis: int, side: _Side, fill) -> str:
    """Rows (``axis`` 2) or columns (3) ``[pad, end)`` of the uncropped plane, when ``y``
    holds the reached residues only (``A`` blocks of ``r``): each is gathered from ``y``, or,
    where its residue is past ``r``, from ``fill`` (``rq_o(0)``, ``[1, cout, 1, 1]``)
    appended to ``y``. The index of each is read from a grid ``[A, m]``, each block's ``r``
    reached rows then the fill's index: ``m`` is the stride, or at one input row, where the
    uncropped side ``uh`` is shorter, ``uh`` (at least ``r + 1``, so no tensor is empty).
    Indices are made by moves alone, no arithmetic on data (OpenVINO and tract narrow int64),
    and the stride's unreached positions are never formed: at one input row the plane would
    have the stride's size and the output the kernel's."""
    end, r = side.end, side.r
    n = e.dim(y, axis)
    blocks = e.node("Add", [side.size, e.const([side.below], I64)])
    uh = e.node("Add", [end, e.const([side.pad], I64)])
    m = e.node("Min", [e.const([side.s], I64), e.node("Max", [uh, e.const([r + 1], I64)])])
    reached = e.node(
        "Range", [e.const(0, I64), e.node("Squeeze", [n, e.const([0], I64)]), e.const(1, I64)]
    )
    others = e.node(
        "Expand", [n, e.node("Concat", [blocks, e.node("Sub", [m, e.const([r], I64)])], axis=0)]
    )
    grid = e.node("Concat", [e.reshape(reached, [blocks, r]), others], axis=1)
    idx = e.slice(e.reshape(grid, [-1]), [side.pad], end, [0])
    other = e.dim(y, 5 - axis)
    shape = [e.const([1, fill.size], I64)] + (
        [e.const([1], I64), other] if axis == 2 else [other, e.const([1], I64)]
    )
    row = e.node("Expand", [e.const(fill, e.storage), e.node("Concat", shape, axis=0)])
    return e.node("Gather", [e.node("Concat", [y, row], axis=axis), idx], axis=axis)


def lower(e: Emitter, op: Op, ins: Names, ctx: LowerCtx) -> Names:
    p = op.params
    sh, sw = p.sh, p.sw
    rh, rw = min(sh, p.kh), min(sw, p.kw)
    w = phase_weights(p.weights, sh, sw)
    th, tw = w.shape[2:]
    # rows a of each phase: 0 .. ⌈uh / sh⌉ − 1 = H − 1 + ⌈(kh + oph) / sh⌉ − 1
    below, right = -(-(p.kh + p.oph) // sh) - 1, -(-(p.kw + p.opw) // sw) - 1
    rq = {
        k: [x for x in v for _ in range(rh * rw)] if isinstance(v, list) else v
        for k, v in rq_args(p.rq, p.cout, ctx.nodes.get(op.index)).items()
    }
    dtype = width(ctx.nodes.get(op.index), rq, e)
    acc = mac_sum(
        e,
        ins[0],
        ctx.range_of(op.inputs[0]),
        w,
        ctx.target,
        groups=1,
        strides=(1, 1),
        pads=(th - 1, tw - 1, below, right),
        dtype=dtype,
        u8s8=ctx.u8s8,
        room=room(rq, dtype),
    )
    y = requantise(e, acc, **rq, dtype=dtype)
    y = stored(e, y, dtype)
    out, (lo, hi) = ctx.graph.tensor(op.outputs[0]), ctx.produced(op)
    if out.policy == "clamp":
        y = clip(e, y, out.lo, out.hi)
        lo, hi = max(lo, out.lo), min(hi, out.hi)
    y = depth_to_space(e, y, p.cout, rh, rw, fits_i8((lo, hi)))
    hin, win = e.hw(ins[0])
    sides = {
        2: _side(e, hin, sh, p.kh, p.oph, p.ph, below),
        3: _side(e, win, sw, p.kw, p.opw, p.pw, right),
    }
    whole = [axis for axis, side in sides.items() if side.s == side.r]
    if whole:
        y = e.slice(
            y,
            [sides[axis].pad for axis in whole],
            e.node("Concat", [sides[axis].end for axis in whole], axis=0),
            whole,
        )
    for axis, side in sides.items():
        if axis not in whole:
            y = _gathered(e, y, axis, side, _unreached(p, out))
    return [y]
