"""``conv_transpose`` as stride-1 phase convolutions interleaved by ``pixel_shuffle`` (§9.3)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from waiexport.graph import Tensor
from waiexport.params import Conv, Factor, as_array

from .base import Rewrite

__all__ = ["PhaseConvolution", "phase_kernels"]


def _taps(k: int, s: int, rho: int) -> int:
    """How many kernel taps ``rho + s·t < k`` a residue has."""
    return max(0, -(-(k - rho) // s))


def _axis(k: int, s: int, pad: int) -> tuple[int, list[tuple[int, int, int]]]:
    """Along one axis: the common padding of the phase kernels, and for each slot ``i`` of the
    interleave its residue ``ρ = (i + pad) mod s``, offset ``d = ⌊(i + pad) / s⌋`` and taps."""
    slots = [((i + pad) % s, (i + pad) // s) for i in range(s)]
    slots = [(rho, d, _taps(k, s, rho)) for rho, d in slots]
    common = max(max(d, t - 1 - d) for _, d, t in slots)
    return common, slots


def phase_kernels(w: np.ndarray, sh: int, sw: int, ph: int, pw: int):
    """The phase form's weights ``[cout·sh·sw, cin, 2·qh + 1, 2·qw + 1]`` and its paddings
    ``(qh, qw)``. Output channel ``o·sh·sw + i·sw + j`` computes slot ``(i, j)``:
    ``Z_ρ[o][h + dy][w + dx]`` of §9.3, each sub-kernel flipped and centred; missing taps are
    zero weights."""
    cin, cout, kh, kw = w.shape
    qh, rows = _axis(kh, sh, ph)
    qw, cols = _axis(kw, sw, pw)
    out = np.zeros((cout, sh, sw, cin, 2 * qh + 1, 2 * qw + 1), dtype=np.int64)
    for i, (ry, dy, ty) in enumerate(rows):
        for j, (rx, dx, tx) in enumerate(cols):
            for t in range(ty):
                for u in range(tx):
                    out[:, i, j, :, dy + qh - t, dx + qw - u] = w[:, :, ry + sh * t, rx + sw * u].T
    return out.reshape(cout * sh * sw, cin, 2 * qh + 1, 2 * qw + 1), (qh, qw)


def _repeat(rq, n: int):
    """``rq`` with each per-channel entry repeated for the ``n`` phases of its channel."""
    return replace(
        rq,
        mult=as_array(np.repeat(rq.mult, n)) if rq.m_kind == 2 else rq.mult,
        shift=as_array(np.repeat(rq.shift, n)) if rq.s_kind == 2 else rq.shift,
        bias=as_array(np.repeat(rq.bias, n)),
    )


class PhaseConvolution(Rewrite):
    """Replaces ``conv_transpose`` by one stride-1 ``conv`` computing all ``sh·sw`` phases as
    output channels, then ``pixel_shuffle(sh)``.

    Applies when the output is exactly the stride times the input: ``sh = sw`` and
    ``kh + oph − 2·ph = sh``, ``kw + opw − 2·pw = sw`` (k5 s2 p2 op1, k4 s2 p1 op0, …).
    Exact because each output position's sum has the same products as §5.3's, from the one
    residue that reaches it (§9.3); zero weights add zero terms; a slot no tap reaches holds
    ``rq_o(0)`` either way; the ``RQ`` is per output channel and moves with it; an output
    ``clamp`` applies to the same values before the interleave as after it.
    """

    name = "transposed convolution → phase convolutions"
    key = "phase_conv"
    ops = ("conv_transpose",)

    def needed(self, op, target) -> bool:
        return not target.takes_transposed(op.params)

    def check(self, op, g, target) -> str | None:
        p = op.params
        if p.sh != p.sw:
            return f"strides {p.sh}×{p.sw} differ: pixel_shuffle interleaves square phases only"
        if p.kh + p.oph - 2 * p.ph != p.sh or p.kw + p.opw - 2 * p.pw != p.sw:
            return (
                "the output is not exactly the stride times the input "
                "(kh + oph − 2·ph ≠ sh): the exporter's general phase decomposition maps it"
            )
        return None

    def apply(self, op, g, target) -> None:
        p, r = op.params, op.params.sh
        weights, (qh, qw) = phase_kernels(p.weights, p.sh, p.sw, p.ph, p.pw)
        conv = Conv(
            cout=p.cout * r * r,
            kh=weights.shape[2],
            kw=weights.shape[3],
            sh=1,
            sw=1,
            ph=qh,
            pw=qw,
            groups=1,
            w_bytes=p.w_bytes,
            rq=_repeat(p.rq, r * r),
            weights=as_array(weights),
        )
        if r == 1:
            g.replace(op.uid, [("conv", op.inputs, op.outputs, conv)])
            return
        # A clamp on the output is a clamp on the phases too: pixel_shuffle only moves values.
        out = g.tensor(op.outputs[0])
        keep = out.policy == "clamp"
        phases = g.add_tensor(
            Tensor(
                p.cout * r * r,
                None,
                "clamp" if keep else "derived",
                out.lo if keep else 0,
                out.hi if keep else 0,
            )
        )
        g.replace(
            op.uid,
            [
                ("conv", op.inputs, [phases], conv),
                ("pixel_shuffle", [phases], op.outputs, Factor(r)),
            ],
        )
