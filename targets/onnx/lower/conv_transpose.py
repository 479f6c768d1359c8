"""``conv_transpose`` (§5.3) by the general phase decomposition (§9.3), for any stride,
padding and output padding: every phase ``ρ`` is a stride-1 convolution with its flipped
sub-kernel, all phases are one ``ConvInteger`` sum (as output channels), the requantisation
follows (int32 where the certificate allows, :func:`..requant.width`), the output's ``clamp``
policy is applied, the phases are interleaved into the uncropped plane (as int8 when the
output is certified int8, :func:`._common.depth_to_space`), and the plane is cropped to
``[ph, ph + Ho)`` with ``Ho`` from the input's run-time shape."""

import numpy as np

from ..emit import I64
from ..mac import mac_sum
from ..requant import requantise, rq_args, width
from ._common import clip, depth_to_space, fits_i8, stored


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
            out[:, ry, rx, :, th - sub.shape[2]:, tw - sub.shape[3]:] = sub
    return out.reshape(cout * rh * rw, cin, th, tw)


def _unreached(e, y, p, rh: int, rw: int) -> str:
    """``y`` (``[1, cout, rh, rw, A, B]``, the reached residues) widened to every residue,
    ``[1, cout, sh, sw, A, B]``: the others hold ``rq_o(0)``, built by PAD so that no
    constant has a side of the stride's size."""
    from waiexport.reference.rq import rq
    zero = rq(np.zeros((p.cout, 1, 1), dtype=np.int64), p.rq).astype(np.int64).reshape(-1)
    widen = e.const([0, 0, 0, 0, 0, 0, 0, 0, p.sh - rh, p.sw - rw, 0, 0], I64)
    y = e.node("Pad", [y, widen])
    if not zero.any():
        return y
    reached = e.node("Pad", [e.const(np.ones((1, 1, rh, rw, 1, 1)), e.storage), widen])
    others = e.node("Sub", [e.const(np.ones((1, 1, 1, 1, 1, 1)), e.storage), reached])
    fill = e.node("Mul", [others, e.const(zero.reshape(1, -1, 1, 1, 1, 1), e.storage)])
    return e.node("Add", [y, fill])


def lower(e, op, ins, ctx):
    p = op.params
    sh, sw = p.sh, p.sw
    rh, rw = min(sh, p.kh), min(sw, p.kw)
    w = phase_weights(p.weights, sh, sw)
    th, tw = w.shape[2:]
    # rows a of each phase: 0 .. ⌈uh / sh⌉ − 1 = H − 1 + ⌈(kh + oph) / sh⌉ − 1
    below, right = -(-(p.kh + p.oph) // sh) - 1, -(-(p.kw + p.opw) // sw) - 1
    rq = {k: [x for x in v for _ in range(rh * rw)] if isinstance(v, list) else v
          for k, v in rq_args(p.rq, p.cout, ctx.nodes.get(op.index)).items()}
    dtype = width(ctx.nodes.get(op.index), rq)
    acc = mac_sum(e, ins[0], ctx.range_of(op.inputs[0]), w, ctx.target, groups=1,
                  strides=(1, 1), pads=(th - 1, tw - 1, below, right), dtype=dtype, u8s8=ctx.u8s8)
    y = requantise(e, acc, **rq, dtype=dtype)
    y = stored(e, y, dtype)
    if (rh, rw) != (sh, sw):
        a, b = e.hw(y)
        y = _unreached(e, e.reshape(y, [1, p.cout, rh, rw, a, b]), p, rh, rw)
        y = e.reshape(y, [1, p.cout * sh * sw, a, b])
    out = ctx.graph.tensor(op.outputs[0])
    if out.policy == "clamp":
        y = clip(e, y, out.lo, out.hi)
    y = depth_to_space(e, y, p.cout, sh, sw, fits_i8(ctx.range_of(op.outputs[0])))
    hin, win = e.hw(ins[0])
    ends = e.node("Concat", [
        e.node("Add", [e.times(hin, sh), e.const([p.kh + p.oph - p.ph - sh], I64)]),
        e.node("Add", [e.times(win, sw), e.const([p.kw + p.opw - p.pw - sw], I64)])], axis=0)
    return [e.slice(y, [p.ph, p.pw], ends, [2, 3])]
