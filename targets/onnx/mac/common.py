"""What the convolution-sum strategies share: the int32 bound, digit counts, the kernel's
support and trims, the joins of partial sums, windows and type moves."""

from __future__ import annotations

import numpy as np

from ..emit import I64, Emitter

__all__ = [
    "I32_MAX",
    "END",
    "digits_of",
    "gemm_channels",
    "support",
    "trim",
    "trimmed",
    "by_trim",
    "joined",
    "im2cols",
    "GROUPED",
    "signs_join",
    "tap_window",
    "typed",
]


I32_MAX = (1 << 31) - 1
END = (1 << 63) - 1  # a Slice end past any dimension


def digits_of(bound: int) -> int:
    """How many base-256 digits a magnitude up to ``bound`` needs."""
    return max(1, -(-bound.bit_length() // 8))


def gemm_channels(cg: int, taps: int, x_top: int, w_top: int) -> int:
    """How many input channels one ``ConvInteger`` of these digits may sum: its int32
    accumulator holds ``chunk·taps`` products of at most ``x_top·w_top`` each."""
    return max(1, min(cg, I32_MAX // max(1, x_top * w_top * taps)))


def support(w: np.ndarray, pads: tuple) -> list[tuple]:
    """Per output channel, how many all-zero kernel rows (top, bottom) and columns (left,
    right) it has, each at most the padding on that side (a trim past it would need a
    negative pad)."""
    out = []
    for wo in w:
        rows, cols = np.flatnonzero(wo.any(axis=(0, 2))), np.flatnonzero(wo.any(axis=(0, 1)))
        out.append(trim(rows, cols, w.shape, pads) if rows.size else (0, 0, 0, 0))
    return out


def trim(rows, cols, shape: tuple, pads: tuple) -> tuple:
    """The kernel rows above and below the sorted ``rows`` a kernel of ``shape`` uses, and
    its columns left and right of ``cols``: ``(top, bottom, left, right)``, each at most the
    padding on that side."""
    kh, kw = shape[2:]
    return (
        min(rows[0], pads[0]),
        min(kh - 1 - rows[-1], pads[2]),
        min(cols[0], pads[1]),
        min(kw - 1 - cols[-1], pads[3]),
    )


def trimmed(w: np.ndarray, pads: tuple, trim: tuple) -> tuple[np.ndarray, tuple]:
    """``w`` without the border rows and columns ``trim`` names, and the padding reduced to
    match, so every output position reads the same input elements."""
    top, bottom, left, right = trim
    kh, kw = w.shape[2:]
    return (
        w[:, :, top : kh - bottom, left : kw - right],
        (pads[0] - top, pads[1] - left, pads[2] - bottom, pads[3] - right),
    )


def by_trim(trims: list) -> list[tuple[list[int], tuple]]:
    """The output channels of each kind in ``trims`` (one per channel: its trim, or the taps
    its weights use), with it, in order of each kind's first channel."""
    return [([o for o, t in enumerate(trims) if t == kind], kind) for kind in dict.fromkeys(trims)]


def joined(e: Emitter, sums: list[str], order: list[int], axis: int) -> str:
    """The groups' ``sums`` joined on ``axis``, whose channels ``order`` lists group by
    group, put in channel order (no ``Gather`` where they are in it already)."""
    total = sums[0] if len(sums) == 1 else e.node("Concat", sums, axis=axis)
    if order != sorted(order):
        total = e.node("Gather", [total, e.const(np.argsort(order), I64)], axis=axis)
    return total


def im2cols(
    e: Emitter,
    planes: list[str],
    c: int,
    kh: int,
    kw: int,
    strides: tuple,
    pads: tuple,
    trims: tuple = ((0, 0, 0, 0),),
) -> tuple[list[list[str]], str, str]:
    """The rows ``[Ho·Wo, kh·kw·c]`` of each NHWC plane ``[1, H, W, c]`` of ``planes`` (all
    one shape): padded, flattened to ``[Hp·Wp, c]`` and gathered by one ``Gather`` of the
    taps' row indices, built once at run time from the shape and shared, so no transpose
    and one copy a plane; with the names of ``Ho`` and ``Wo``. The indices are each window's
    start ``[Ho·Wo, 1]`` plus each tap's offset ``[1, kh·kw]``: onnxruntime broadcasts that
    in 0.9 ms for 256 × 256 windows of 3 × 3, where ``[Ho, 1, kh, 1] + [1, Wo, 1, kw]``
    took 2.7 ms (measured)."""
    sh, sw = strides
    padded = [
        e.node("Pad", [u, e.const([0, pads[0], pads[1], 0, 0, pads[2], pads[3], 0], I64)])
        for u in planes
    ]
    hp, wp = e.dim(padded[0], 1), e.dim(padded[0], 2)
    ho = e.node("Add", [e.over(e.node("Sub", [hp, e.const([kh], I64)]), sh), e.const([1], I64)])
    wo = e.node("Add", [e.over(e.node("Sub", [wp, e.const([kw], I64)]), sw), e.const([1], I64)])

    def step(d: str, k: int) -> str:
        """``0, k, 2k, …`` below ``d·k``."""
        end = e.node("Squeeze", [e.times(d, k), e.const([0], I64)])
        return e.node("Range", [e.const(0, I64), end, e.const(k, I64)])

    starts = e.node(
        "Add",
        [e.node("Mul", [e.reshape(step(ho, sh), [-1, 1]), wp]), e.reshape(step(wo, sw), [1, -1])],
    )
    starts, flat = e.reshape(starts, [-1, 1]), [e.reshape(u, [-1, c]) for u in padded]
    rows = [[] for _ in padded]
    for top, bottom, left, right in trims:
        taps = e.node(
            "Add",
            [
                e.node("Mul", [e.const(np.arange(top, kh - bottom).reshape(-1, 1), I64), wp]),
                e.const(np.arange(left, kw - right).reshape(1, -1), I64),
            ],
        )
        idx = e.node("Add", [starts, e.reshape(taps, [1, -1])])
        n = (kh - top - bottom) * (kw - left - right) * c
        for got, u in zip(rows, flat):
            got.append(e.reshape(e.node("Gather", [u, idx], axis=0), [-1, n]))
    return rows, ho, wo


#: Output channels are summed in groups of equal support where the groups' products are at
#: most this share of one product over every tap: a stride-2 k5 ``conv_transpose``'s phases
#: (25 of 36 taps) gain a little at a 64×64 latent (the realistic ``int_synth``: 154 against
#: 160 ms, medians of 40 interleaved runs; none at 16×16), and a k4's (16 of 36) more. The
#: x-first product (:func:`_column_groups`) groups by the same share where every group keeps
#: enough columns (:data:`_COLUMNS`).
GROUPED = 0.8


def signs_join(w: np.ndarray, top: int) -> bool:
    """Whether an input's two sign parts, each at most ``top``, may be multiplied by
    ``[w; −w]`` in one GEMM: ``−w`` is an int8 (no weight is −128) and the sum of
    ``2·cin·taps`` products of at most ``top·max|w|`` fits the int32 accumulator."""
    return int(w.min()) > -128 and 2 * w[0].size * top * max(1, int(np.abs(w).max())) <= I32_MAX


def tap_window(
    e: Emitter, xp: str, i: int, j: int, kernel: tuple, axes: list, strides: tuple
) -> str:
    """Tap ``(i, j)``'s window of the padded input ``xp`` on its two spatial ``axes``: the
    rows and columns it reads for every output position, by a strided ``Slice`` (whose end
    past an axis is clamped)."""
    end = [t + 1 - k if t + 1 < k else 1 << 62 for t, k in zip((i, j), kernel)]
    return e.slice(xp, [i, j], end, axes, strides)


def typed(e: Emitter, x: str, have: int, want: int) -> str:
    """``x``, an integer tensor of type ``have``, as type ``want``."""
    return x if have == want else e.cast(x, want)
