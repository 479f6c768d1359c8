"""``conv_transpose`` (§5.3) by the general phase decomposition (§9.3), for any stride,
padding and output padding: every phase ``ρ`` is a stride-1 convolution with its flipped
sub-kernel, all phases are one ``ConvInteger`` sum (as output channels), the requantisation
follows, the phases are interleaved into the uncropped plane, and the plane is cropped to
``[ph, ph + Ho)`` with ``Ho`` from the input's run-time shape."""

import numpy as np

from ..emit import I64
from ..mac import mac_sum
from ..requant import requantise, rq_args
from ._common import narrow


def phase_weights(w: np.ndarray, sh: int, sw: int) -> np.ndarray:
    """``[cout·sh·sw, cin, th, tw]``: channel ``o·sh·sw + ρy·sw + ρx`` holds the sub-kernel
    ``W[ci][o][ρy + sh·t][ρx + sw·t′]`` flipped, aligned to the bottom-right, so that a
    correlation padded by ``th − 1`` above computes ``Z_ρ[a] = Σ_t W[ρ + s·t]·X̃[a − t]``."""
    cin, cout, kh, kw = w.shape
    th, tw = -(-kh // sh), -(-kw // sw)
    out = np.zeros((cout, sh, sw, cin, th, tw), dtype=np.int64)
    for ry in range(min(sh, kh)):
        for rx in range(min(sw, kw)):
            sub = w[:, :, ry::sh, rx::sw][:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
            out[:, ry, rx, :, th - sub.shape[2]:, tw - sub.shape[3]:] = sub
    return out.reshape(cout * sh * sw, cin, th, tw)


def lower(e, op, ins, ctx):
    p = op.params
    sh, sw = p.sh, p.sw
    w = phase_weights(p.weights, sh, sw)
    th, tw = w.shape[2:]
    # rows a of each phase: 0 .. ⌈uh / sh⌉ − 1 = H − 1 + ⌈(kh + oph) / sh⌉ − 1
    below, right = -(-(p.kh + p.oph) // sh) - 1, -(-(p.kw + p.opw) // sw) - 1
    acc = mac_sum(e, ins[0], ctx.range_of(op.inputs[0]), w, ctx.target, groups=1,
                  strides=(1, 1), pads=(th - 1, tw - 1, below, right))
    rq = {k: [x for x in v for _ in range(sh * sw)] if isinstance(v, list) else v
          for k, v in rq_args(p.rq, p.cout).items()}
    y = narrow(e, requantise(e, acc, **rq))
    a, b = e.hw(y)
    y = e.reshape(y, [1, p.cout, sh, sw, a, b])
    y = e.node("Transpose", [y], perm=[0, 1, 4, 2, 5, 3])
    y = e.reshape(y, [1, p.cout, e.times(a, sh), e.times(b, sw)])
    hin, win = e.hw(ins[0])
    ends = e.node("Concat", [
        e.node("Add", [e.times(hin, sh), e.const([p.kh + p.oph - p.ph - sh], I64)]),
        e.node("Add", [e.times(win, sw), e.const([p.kw + p.opw - p.pw - sw], I64)])], axis=0)
    return [e.slice(y, [p.ph, p.pw], ends, [2, 3])]
