"""A signed int8 ``x`` whole, the s8 operand, against the weights' sign parts in NCHW's own
order: a ``ConvInteger`` of the int8 input, or a ``MatMulInteger`` of its windows
(:func:`weights_first_sum`)."""

from __future__ import annotations

import numpy as np

from ..emit import I8, I32, I64, U8, Emitter
from .common import GROUPED, I32_MAX, by_trim, joined, tap_window, trim, trimmed, typed
from .digits import conv_sum

__all__ = ["weights_first_sum"]


def weights_first_sum(
    e: Emitter,
    x: str,
    x_range: tuple[int, int],
    w: np.ndarray,
    *,
    strides: tuple,
    pads: tuple,
    dtype: int,
) -> str:
    """``Σ w·x̃`` of a groups-1 convolution of a signed int8 ``x`` and int8 weights on the
    u8×s8 kernel with the weights first: their sign parts ``max(±w, 0)`` (each at most 128,
    the u8 operand) stacked on the output channels, against ``x`` cast to int8 once (the s8
    operand, whole: no sign split of ``x``). Where the runtime takes ``ConvInteger`` on int8
    (its target's facts; probed at load), that is one ``ConvInteger`` (:func:`_signed`):
    onnxruntime runs it on the same kernel, the weights as its A, with its own im2col, 0.93×
    the time of the ``MatMulInteger`` form on a 3×3 64→64 convolution of 128×128
    (interleaved, measured). Elsewhere (TVM has no ``ConvInteger``) it is ``MatMulInteger``
    times the im2col ``[taps·cin, Ho·Wo]`` whose rows are the taps' windows of the padded
    input, each a strided slice. Either order is NCHW's own, so neither operand nor the
    result is transposed: 10.2 against 14.6 ms for :func:`im2col_sum` there. Output
    channels are summed in groups of equal support (the taps where their weights are not
    all zero), one product per group (a ``ConvInteger``'s on the group's bounding kernel,
    its padding reduced to match), where that leaves out at least a fifth of the products
    (:data:`GROUPED`; the phase form's missing taps, §9.3: 4 groups of 4 taps instead of 9
    on a stride-2 k4 ``conv_transpose``), the groups joined in order of their first channel
    and put back in channel order where that is not it. The pairs the kernel adds in int16
    are those :func:`u8s8_exact` probes (u8 up to 128 against any s8); the caller has
    checked that ``taps·cin·128·128`` fits the int32 accumulator. Each part's sum is a
    subset sum of the certified terms (§8.2); their difference is the sum. Zero points 0;
    no offset encoding (§3, *Storage*)."""
    cout, cin, kh, kw = w.shape
    if not w.any():
        return conv_sum(e, x, x_range, w, groups=1, strides=strides, pads=pads, dtype=dtype)
    support = [tuple(np.flatnonzero(wo.any(axis=0).reshape(-1))) for wo in w]
    every = tuple(sorted(set().union(*support)))
    some = next(s for s in support if s)
    support = [s or some for s in support]  # a channel of zero weights joins a group
    groups = by_trim(support)  # by first channel: phase-major needs no reorder
    if sum(len(rows) * len(kind) for rows, kind in groups) > GROUPED * len(every) * cout:
        groups = [(list(range(cout)), every)]
    wide = 2 * len(every) * cin * 128 * 128 > I32_MAX
    if e.exact("ConvInteger", I8):
        axis, x8 = 1, e.cast(x, I8)

        def product(rows: list, kind: tuple) -> str:
            taps = np.array(kind)
            sub, reduced = trimmed(
                w[rows], pads, trim(np.unique(taps // kw), np.unique(taps % kw), w.shape, pads)
            )
            attrs = dict(
                strides=list(strides), kernel_shape=list(sub.shape[2:]), pads=list(reduced)
            )
            return _signed(e, sub, lambda ws: e.node("ConvInteger", [x8, ws], **attrs), axis, wide)
    else:
        axis = 0
        xp = e.node(
            "Pad",
            [
                e.node("Squeeze", [e.cast(x, I8), e.const([0], I64)]),
                e.const([0, pads[0], pads[1], 0, pads[2], pads[3]], I64),
            ],
        )
        windows = {t: tap_window(e, xp, t // kw, t % kw, (kh, kw), [1, 2], strides) for t in every}

        def product(rows: list, kind: tuple) -> str:
            cols = (
                e.node("Concat", [windows[t] for t in kind], axis=0)
                if len(kind) > 1
                else windows[kind[0]]
            )
            wk = np.transpose(w[rows].reshape(len(rows), cin, -1)[:, :, kind], (0, 2, 1))
            cols = e.reshape(cols, [len(kind) * cin, -1])
            return _signed(
                e,
                wk.reshape(len(rows), -1),
                lambda ws: e.node("MatMulInteger", [ws, cols]),
                axis,
                wide,
            )

    total = joined(
        e,
        [product(rows, kind) for rows, kind in groups],
        [o for rows, _ in groups for o in rows],
        axis,
    )
    if axis == 0:  # the product's rows by the windows' positions
        first = windows[every[0]]
        total = e.reshape(total, [1, cout, e.dim(first, 1), e.dim(first, 2)])
    return typed(e, total, I64 if wide else I32, dtype)


def _signed(e: Emitter, w: np.ndarray, product, axis: int, wide: bool) -> str:
    """The sum of int8 weights ``w`` against an int8 operand: ``product`` of the weights'
    sign parts ``max(±w, 0)`` (each a u8 of at most 128) stacked on ``w``'s first axis, which
    is ``axis`` of the product's result (a GEMM's rows, a convolution's output channels),
    then their difference (in int64 where ``wide``)."""
    parts = [(sign, np.maximum(sign * w, 0)) for sign in (1, -1) if (sign * w > 0).any()]
    acc = product(e.const(np.concatenate([part for _, part in parts]), U8, "w"))
    if len(parts) == 2:
        n = w.shape[0]
        pos, neg = (e.slice(acc, [k * n], [(k + 1) * n], [axis]) for k in (0, 1))
        return e.node("Sub", [e.cast(pos, I64), e.cast(neg, I64)] if wide else [pos, neg])
    acc = e.cast(acc, I64) if wide else acc
    return e.node("Neg", [acc]) if parts[0][0] < 0 else acc
