"""Convolution sums with fewer products, for a runtime whose only exact sum of products is
int32 ``Mul`` and ``Add`` (OpenVINO): Winograd's minimal filtering ``F(2, k)`` on each
spatial axis, in integers."""

from __future__ import annotations

import numpy as np

from ..emit import I32, I64, Emitter
from ..limbs import bit_floor_shift
from .common import END, I32_MAX, typed
from .elementwise import chain, halves, row_blocks, segments

__all__ = ["winograd_bound", "winograd_sum"]

#: Per kernel length ``k``: ``F(2, k)``'s input transform ``Bᵀ`` (``k + 1`` rows of the
#: tile's inputs), its weight transform ``G`` scaled to integers, its output transform
#: ``Aᵀ`` and the scale: ``Aᵀ[(G g) ⊙ (Bᵀ d)] = scale · (g ⋆ d)`` for the two outputs of a
#: tile ``d`` of ``k + 1`` inputs (interpolation at 0, ±1 and ∞; ``k = 3`` halves two of
#: its products, so its ``G`` is doubled).
TRANSFORMS = {
    1: (np.eye(2, dtype=np.int64), np.array([[1], [1]]), np.eye(2, dtype=np.int64), 1),
    2: (
        np.array([[1, -1, 0], [0, 1, 0], [0, -1, 1]]),
        np.array([[1, 0], [1, 1], [0, 1]]),
        np.array([[1, 1, 0], [0, 1, 1]]),
        1,
    ),
    3: (
        np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]),
        np.array([[2, 0, 0], [1, 1, 1], [1, -1, 1], [0, 0, 2]]),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]]),
        2,
    ),
}

#: The most products one ``Mul`` of the chain forms per tile position: the realistic
#: ``int_synth`` set's layers took their least time from 512 to 2,048 (a 3×3 kernel 128→64
#: at 32×32: 8.4, 8.0 and 8.4 ms; 10.9 at 4,096, 17.3 at 8,192; measured interleaved).
_PER_POSITION = 1024

#: The fewest output channels for which the saved products outweigh the transforms: a 3×3
#: kernel from 64 channels at 64×64, interleaved against :func:`.elementwise.elementwise_sum`,
#: took 1.85× its time at 3 output channels, 1.23× at 8, 0.83× at 16 and 0.65× at 32.
_MIN_CHANNELS = 16


def _transformed(w: np.ndarray) -> np.ndarray:
    """``G_h g G_wᵀ`` of every kernel: ``[Cout, Cin, n_h, n_w]``, exact integers."""
    gh, gw = TRANSFORMS[w.shape[2]][1], TRANSFORMS[w.shape[3]][1]
    return np.einsum("ia,ocab,jb->ocij", gh, w.astype(object), gw)


def _ranges(x_range: tuple[int, int], kh: int, kw: int) -> tuple[np.ndarray, np.ndarray]:
    """Each transformed input's interval ``[lo, hi]`` (``[n_h, n_w]`` each), ``x`` in
    ``x_range``, taken symmetric: its coefficients' magnitudes times ``x``'s, which bounds
    every partial sum of the transform too."""
    bh, bw = TRANSFORMS[kh][0], TRANSFORMS[kw][0]
    c = np.einsum("ia,jb->ijab", bh, bw).astype(object)
    top = max(-x_range[0], x_range[1])
    ends = (c * -top, c * top)
    return np.minimum(*ends).sum(axis=(2, 3)), np.maximum(*ends).sum(axis=(2, 3))


def _bounds(x_range: tuple[int, int], w: np.ndarray):
    """Per output channel and component, the magnitude no subset sum of the chain passes,
    or None where one passes i32."""
    u = _transformed(w)
    lo, hi = _ranges(x_range, *w.shape[2:])
    if max(-lo.min(), hi.max(), abs(u).max()) > I32_MAX:
        return None
    ends = (u * lo[None, None], u * hi[None, None])
    low = np.minimum(np.minimum(*ends), 0).sum(axis=1)
    high = np.maximum(np.maximum(*ends), 0).sum(axis=1)
    if low.min() < -(1 << 31) or high.max() > I32_MAX:
        return None
    return np.maximum(-low, high)


def _output_bound(x_range: tuple[int, int], w: np.ndarray) -> int | None:
    """The magnitude no partial sum of the chain or of the output transform passes (the
    scaled sum's among them), or None where one passes i32."""
    m = _bounds(x_range, w)
    if m is None:
        return None
    ah, aw = TRANSFORMS[w.shape[2]][2], TRANSFORMS[w.shape[3]][2]
    z = np.einsum("ai,oij->oaj", np.abs(ah).astype(object), m)
    top = int(np.einsum("bj,oaj->oab", np.abs(aw).astype(object), z).max())
    return top if top <= I32_MAX else None


def winograd_bound(x_range: tuple[int, int], w: np.ndarray, strides: tuple) -> int | None:
    """Where :func:`winograd_sum` takes this convolution, the magnitude no partial sum of
    its passes (:func:`_output_bound`), else None: it takes stride 1, a kernel of at most
    3×3 and more than one tap, enough output channels (:data:`_MIN_CHANNELS`), and every
    partial sum within i32."""
    cout, _, kh, kw = w.shape
    if tuple(strides) != (1, 1) or kh > 3 or kw > 3 or kh * kw == 1 or cout < _MIN_CHANNELS:
        return None
    return _output_bound(x_range, w)


def _combo(e: Emitter, coefs, terms: list[str]) -> str:
    """``Σ c·t`` for coefficients of −1, 0 and 1, at least one of them 1 (every row of
    :data:`TRANSFORMS`' ``Bᵀ`` and ``Aᵀ``), by ``Add`` and ``Sub``: the 1s first."""
    out = None
    for c, t in sorted(zip(coefs, terms), key=lambda ct: -ct[0]):
        if c:
            out = t if out is None else e.node("Add" if c == 1 else "Sub", [out, t])
    return out


def _tiles(e: Emitter, xp: str, n: int, axis: int) -> list[str]:
    """The ``n`` strided slices of ``xp`` on ``axis`` whose ``t``-th entries are the inputs
    of tile ``t`` (tiles two apart)."""
    return [e.slice(xp, [a], [a + 1 - n if a + 1 < n else END], [axis], [2]) for a in range(n)]


def winograd_sum(
    e: Emitter, x: str, top: int, w: np.ndarray, *, pads: tuple, dtype: int, room: int = 0
) -> str:
    """``Σ w·x̃`` of a groups-1, stride-1 convolution of at most 3×3 by ``F(2×2, kh×kw)``
    (``top`` its :func:`winograd_bound`): the padded input (one more row and column, so the
    tiles cover an odd output) cut into overlapping tiles by strided slices, its rows on the
    height and its columns on the height after a ``Transpose`` (OpenVINO runs a ``Slice``
    with a step on the last axis in its reference kernel: 2.5 ms of the realistic
    ``int_synth``'s second layer where 0.5 this way), each tile's inputs transformed by
    ``B_hᵀ d B_w`` (``Add`` and ``Sub``), the transformed weights ``G_h g G_wᵀ``
    (constants) multiplied in and summed over the input channels by
    :func:`.elementwise.chain` (every component at once, in segments, on
    ``[1, 1, components, Cout, tiles]``, so the components are cut apart by a ``Split`` that
    OpenVINO takes in place: the realistic ``int_synth`` set in 0.92× the time of cutting
    them from ``[1, Cout, components, tiles]``, interleaved), the output transform
    ``A_hᵀ M A_w`` and the tiles' two-by-two outputs put in place (``Transpose``;
    onnxruntime has no int32 ``DepthToSpace``), cropped, and divided by the scale (an
    exact floor shift of a multiple, by bits), or left to the sum's requantisation where
    the scale's bits are within its ``room`` (:func:`..requant.room`; ``e.scaled``). A 3×3
    kernel takes 16 products for four outputs where 36; 3×2, 12 where 24; 2×2, 9 where
    16."""
    cout, cin, kh, kw = w.shape
    (bh, _, ah, sh), (bw, _, aw, sw) = TRANSFORMS[kh], TRANSFORMS[kw]
    nh, nw = kh + 1, kw + 1
    q = nh * nw
    xp = e.node(
        "Pad",
        [
            x if e.storage == I32 else e.cast(x, I32),
            e.const([0, 0, pads[0], pads[1], 0, 0, pads[2] + 1, pads[3] + 1], I64),
        ],
    )
    rows = _tiles(e, xp, nh, 2)
    v = []
    for i in range(nh):
        across = e.node("Transpose", [_combo(e, bh[i], rows)], perm=[0, 1, 3, 2])
        cols = _tiles(e, across, nw, 2)
        v += [_combo(e, bw[j], cols) for j in range(nw)]
    flat = [e.reshape(t, [1, cin, 1, -1]) for t in v]
    stacked = e.node("Concat", flat, axis=2)
    u = _transformed(w).reshape(cout, cin, q).transpose(1, 2, 0)
    s = segments(cin, q * cout, _PER_POSITION)
    rows = e.reshape(stacked, [1, cin // s, s * q, 1, -1])
    parts = [u[j * s : (j + 1) * s].reshape(1, 1, s * q, cout, 1) for j in range(cin // s)]
    acc = chain(e, row_blocks(e, rows, cin // s), parts)
    if s > 1:
        acc = halves(e, e.reshape(acc, [1, s, -1]), s, axis=1)
    m = e.node("Split", [e.reshape(acc, [1, q, cout, -1])], n_out=q, axis=1, num_outputs=q)
    z = [[_combo(e, ah[a], m[j::nw]) for j in range(nw)] for a in range(2)]
    y = [_combo(e, aw[b], z[a]) for a in range(2) for b in range(2)]
    tw, th = e.hw(v[0])
    tiles = e.reshape(e.node("Concat", y, axis=1), [1, 2, 2, cout, tw, th])
    placed = e.node("Transpose", [tiles], perm=[0, 3, 5, 1, 4, 2])
    out = e.reshape(placed, [1, cout, e.times(th, 2), e.times(tw, 2)])
    fit = e.slice(xp, [0, 0, 0], [1, -kh, -kw], [1, 2, 3])
    out = e.slice(out, [0, 0], e.slice(e.dims(fit), [2], [4], [0]), [2, 3])
    bits = (sh * sw).bit_length() - 1
    if bits > room:
        out, bits = bit_floor_shift(e, out, [bits] * cout, (-top, top)), 0
    out = typed(e, out, I32, dtype)
    if bits:
        e.scaled[out] = [bits] * cout
    return out
