"""The NHWC im2col on onnxruntime's u8×s8 ``MatMulInteger``: a non-negative part of ``x`` in
base-128 (or base-256) digits, the u8 operand, against the signed weights (:func:`im2col_sum`)."""

from __future__ import annotations

import numpy as np

from ..emit import I8, I32, I64, U8, Emitter
from .common import (
    END,
    GROUPED,
    I32_MAX,
    by_trim,
    gemm_channels,
    im2cols,
    joined,
    signs_join,
    support,
    trimmed,
    typed,
)
from .digits import conv_sum

__all__ = ["im2col_sum"]


def _tops(bound: int, base: int) -> list[int]:
    """The largest value of each digit (base 128 or 256) of a non-negative part up to
    ``bound``, the last digit taking what is left: at most 128 in base 128, 255 in base 256,
    so every digit is a u8."""
    tops, last, shift = [], min(base, 255), base.bit_length() - 1
    while bound > last:
        tops.append(base - 1)
        bound >>= shift
    return tops + [bound]


def _nhwc_parts(e: Emitter, x: str, lo: int, hi: int, base: int) -> list[tuple[int, str, int]]:
    """``(scale, u8 NHWC tensor, its largest value)`` with ``x = Σ scale·tensor``: the sign
    parts ``max(±x, 0)`` (int32; ``lo > −2^31``, so ``−x`` never wraps; no ``Max`` where the
    certificate has the part's sign already), each in digits of ``base`` by ``Div`` of a
    non-negative value (no ``Mod``), the low digit its ``BitwiseAnd`` with ``base − 1``
    where the runtime computes that exactly, moved to NHWC once, or taken from ``x``'s
    NHWC twin where its producer made one (:attr:`.emit.Emitter.nhwc`)."""
    parts, twin = [], e.nhwc.get(x)
    for sign, bound in ((1, hi), (-1, -lo)):
        if bound <= 0:
            continue
        rest = (twin or x) if sign > 0 else e.node("Neg", [twin or x])
        if (lo if sign > 0 else -hi) < 0:
            rest = e.node("Max", [rest, e.const(0, I32)])
        tops = _tops(bound, base)
        for k, top in enumerate(tops):
            digit = rest
            if k + 1 < len(tops):
                low = (
                    e.node("BitwiseAnd", [rest, e.const(base - 1, I32)])
                    if e.exact("BitwiseAnd", I32)
                    else None
                )
                rest = e.node("Div", [rest, e.const(base, I32)])
                digit = low or e.node("Sub", [digit, e.node("Mul", [rest, e.const(base, I32)])])
            u = (
                e.cast(digit, U8)
                if twin
                else e.node("Transpose", [e.cast(digit, U8)], perm=[0, 2, 3, 1])
            )
            parts.append((sign * base**k, u, top))
    return parts


#: The fewest output channels a group of :func:`_column_groups` may have: a GEMM of a few
#: columns runs far below the kernel's peak, so the realistic ``int_synth``'s last layer
#: (3 channels a phase) keeps one product (grouping it too took 1.18× the time at a 64×64
#: latent, 1.19× at 16×16, interleaved), while grouping its first two layers' phases (128
#: and 64 channels) makes the whole 0.87× the time at 64×64, 0.92× at 16×16 (measured).
_COLUMNS = 32


def _column_groups(w: np.ndarray, pads: tuple) -> list[tuple[list[int], tuple]]:
    """The output channels of ``w`` by their trimmed kernel (:func:`support`), each group
    with its trims, where that leaves out at least a fifth of the products and every group
    has :data:`_COLUMNS` channels or more; else one group of every channel, untrimmed."""
    cout, _, kh, kw = w.shape
    groups = by_trim(support(w, pads))
    products = sum(len(c) * (kh - t - b) * (kw - left - r) for c, (t, b, left, r) in groups)
    if (
        len(groups) == 1
        or products > GROUPED * kh * kw * cout
        or min(len(c) for c, _ in groups) < _COLUMNS
    ):
        return [(list(range(cout)), (0, 0, 0, 0))]
    return groups


def im2col_sum(
    e: Emitter,
    x: str,
    x_range: tuple[int, int],
    w: np.ndarray,
    *,
    strides: tuple,
    pads: tuple,
    dtype: int,
) -> str:
    """``Σ w·x̃`` of a groups-1 convolution with int8 weights as ``MatMulInteger`` u8×s8
    over NHWC im2cols, one per sign part and digit of ``x`` (:func:`_nhwc_parts`; an int8
    ``x`` has one digit per sign, a non-negative one no ``x⁻``): 2× the float MACs on int8
    data where four u8×u8 ``ConvInteger`` take 4×, on onnxruntime's fast u8×s8 kernel (s8×u8
    is 14× slower here, measured), exact while :func:`u8s8_exact` holds: digits of base 128
    (at most 128) against any int8 weight, or, where no weight passes 64 in magnitude, of
    base 256 (at most 255; a 16-bit ``x`` in two digits where base 128 takes three). Each
    ``MatMulInteger`` sums few enough channels that its int32 accumulator holds
    ``taps·top·max|w|``; each digit is gathered and multiplied on its own, its two sign
    parts joined on the channels against ``[w; −w]`` where they may be
    (:func:`_signs_joined`), the gathers sharing one index (the digits stacked on the batch
    axis in one GEMM, the sums' split cost a copy of each: the realistic ``int_synth`` 0.92×
    the time at a 64×64 latent this way, measured); the
    sums are combined in the ``[Ho·Wo, cout]`` layout (int32 where the combination's bound
    fits, int64 otherwise) and moved to NCHW once. Output channels whose kernels leave out
    border rows and columns (the phase form's missing taps, §9.3) are multiplied in groups
    on their trimmed kernels (:func:`_column_groups`), each group's gather reading its own
    taps, the groups' columns joined in channel order; where every group's kernel has one
    size at stride 1, one gather and one GEMM take every group's columns, each group's
    sums a shifted tap_window of the result (:func:`_shared_window`). Where ``x``'s range needs
    more than one digit a sign and the target's runtime runs ONNX ``If`` (``skips_digits``), an
    ``If`` on ``x``'s largest and smallest values takes the product of one digit a sign
    where every value fits one (the range ``few``), else the whole product: a bound the
    certificate proves for every input is met by far fewer (the realistic ``int_synth``'s
    ``relu`` outputs, certified to ``[0, 2269]`` and ``[0, 56463]``, peak near 150 on random
    latents), and either branch is the exact sum for the values it is given (the test,
    the largest value against ``last + 1`` and the smallest against ``−last − 1``, comes out
    the same where a runtime computes it through float32, which rounds monotonically and
    holds those ends exactly). Zero points 0; no offset encoding (§3, *Storage*)."""
    if not any(x_range):
        return conv_sum(e, x, x_range, w, groups=1, strides=strides, pads=pads, dtype=dtype)
    base = 256 if np.abs(w).max() <= 64 else 128
    last = min(base, 255)  # the most one u8 digit of ``base`` holds
    few = (max(x_range[0], -last), min(x_range[1], last))
    if few == x_range or e.target is None or not e.target.options.skips_digits:
        nhwc = _nhwc_sum(e, x, x_range, w, base, strides=strides, pads=pads, dtype=dtype)
    else:
        seen = e.nhwc.get(x) or x
        ends = [("Less", "ReduceMax", last + 1)] if few[1] < x_range[1] else []
        ends += [("Greater", "ReduceMin", -last - 1)] if few[0] > x_range[0] else []
        fits = [
            e.node(op, [e.node(reduce, [seen], keepdims=0), e.const(end, I32)])
            for op, reduce, end in ends
        ]
        fit = fits[0] if len(fits) == 1 else e.node("And", fits)
        with e.branch() as one:
            small = _nhwc_sum(e, x, few, w, base, strides=strides, pads=pads, dtype=dtype)
        with e.branch() as every:
            whole = _nhwc_sum(e, x, x_range, w, base, strides=strides, pads=pads, dtype=dtype)
        nhwc = e.when(fit, (one, small), (every, whole), dtype)
    total = e.node("Transpose", [nhwc], perm=[0, 3, 1, 2])
    e.nhwc[total] = nhwc
    return total


def _signs_joined(e: Emitter, parts: list, w: np.ndarray) -> list[tuple]:
    """``parts`` (:func:`_nhwc_parts`, ``(scale, u8 NHWC plane, top)``) as ``(scale, plane,
    top, signs)``: each digit's two sign parts joined on the channels, ``[x⁺, x⁻]`` with
    ``signs`` ``(1, −1)``, for one GEMM by ``[w; −w]`` where :func:`signs_join` allows,
    in place of two GEMMs and the difference of their sums (the realistic ``int_synth``
    0.96× the time at a 16×16 latent, 0.98× at 64×64; the transposed stack, x first, 0.96×,
    interleaved). Each element has one sign part 0, so the GEMM sums the same terms; a
    part without a twin keeps ``signs`` ``(1,)``."""
    out, paired = [], set()
    for k, (scale, u, top) in enumerate(parts):
        if k in paired:
            continue
        twin = (
            next((j for j, part in enumerate(parts) if part[0] == -scale), None)
            if scale > 0
            else None
        )
        both = None if twin is None else max(top, parts[twin][2])
        if twin is not None and signs_join(w, both):
            paired.add(twin)
            out.append((scale, e.node("Concat", [u, parts[twin][1]], axis=3), both, (1, -1)))
        else:
            out.append((scale, u, top, (1,)))
    return out


def _nhwc_sum(
    e: Emitter,
    x: str,
    x_range: tuple[int, int],
    w: np.ndarray,
    base: int,
    *,
    strides: tuple,
    pads: tuple,
    dtype: int,
) -> str:
    """:func:`im2col_sum`'s product for ``x`` in ``x_range`` (not all 0), in digits of
    ``base``: ``[1, Ho, Wo, cout]`` as ``dtype``."""
    cout, cin, kh, kw = w.shape
    wmax = max(1, int(np.abs(w).max()))
    parts = _nhwc_parts(e, x, *x_range, base)
    bound = sum(abs(scale) * top * wmax * kh * kw * cin for scale, _, top in parts)
    pieces = []  # (scale, u8 NHWC plane, first channel, channels, signs of its blocks)
    for scale, u, top, signs in _signs_joined(e, parts, w):
        chunk = cin if len(signs) > 1 else gemm_channels(cin, kh * kw, top, wmax)
        pieces += [
            (
                scale,
                u if chunk == cin else e.slice(u, [c0], [c0 + chunk], [3]),
                c0,
                min(chunk, cin - c0),
                signs,
            )
            for c0 in range(0, cin, chunk)
        ]
    groups = _column_groups(w, pads)
    shared = _shared_window(groups, strides, (kh, kw))
    kernel, trims = (kh, kw), tuple(trim for _, trim in groups)
    if shared:
        (t0, l0), (dt, dl), (sh, sw) = shared
        kernel, trims = (kh - dt, kw - dl), ((t0, kh - dt - t0 - sh, l0, kw - dl - l0 - sw),)
    rows = {}
    widths = [p[3] * len(p[4]) for p in pieces]
    for n in sorted(set(widths)):  # one index a width, shared by its gathers
        group = [k for k, width in enumerate(widths) if width == n]
        got, ho, wo = im2cols(e, [pieces[k][1] for k in group], n, *kernel, strides, pads, trims)
        rows.update(zip(group, got))
    wide = bound > I32_MAX
    blocks = [
        np.transpose(trimmed(w[channels], pads, trim)[0], (2, 3, 1, 0)) for channels, trim in groups
    ]
    if shared:
        blocks = [np.concatenate(blocks, axis=3)]
    totals = []
    for g, wg in enumerate(blocks):
        total = None
        for k, (scale, _, c0, n, signs) in enumerate(pieces):
            ws = np.concatenate([sign * wg[:, :, c0 : c0 + n] for sign in signs], axis=2)
            acc = e.node(
                "MatMulInteger", [rows[k][g], e.const(ws.reshape(-1, wg.shape[3]), I8, "w")]
            )
            term = e.cast(acc, I64) if wide else acc
            if abs(scale) != 1:
                term = e.node("Mul", [term, e.const(abs(scale), I64 if wide else I32)])
            total = (
                (term if scale > 0 else e.node("Neg", [term]))
                if total is None
                else e.node("Add" if scale > 0 else "Sub", [total, term])
            )
        totals.append(e.reshape(total, [1, ho, wo, wg.shape[3]]))
    if shared:
        totals = _shifted(e, totals[0], groups, shared)
    total = joined(e, totals, [o for channels, _ in groups for o in channels], 3)
    return typed(e, total, I64 if wide else I32, dtype)


def _shared_window(groups: list, strides: tuple, kernel: tuple):
    """Where every group of :func:`_column_groups` has a trimmed kernel of one size and the
    stride is 1 (the phases of a transposed convolution whose kernel the stride divides),
    each group's window at an output position is one window of that size shifted by the
    group's trim: ``((top, left)`` of the least shift, ``(rows, columns)`` of extra
    positions, the window's size``)``, for one gather and one GEMM over every group's
    columns (the transposed stack's last layer 18.8 against 21.4 ms for four GEMMs of a
    quarter of its columns, and one gather in place of four, measured); else ``None``. The
    extra positions are windows inside the padded input, so their sums are bounded as
    every window's; what no group keeps is cut away (after the steps that follow, which
    :mod:`.sink` runs on the whole result)."""
    kh, kw = kernel
    sizes = {(kh - t - b, kw - left - r) for _, (t, b, left, r) in groups}
    if len(groups) < 2 or len(sizes) != 1 or tuple(strides) != (1, 1):
        return None
    tops, lefts = [trim[0] for _, trim in groups], [trim[2] for _, trim in groups]
    return (min(tops), min(lefts)), (max(tops) - min(tops), max(lefts) - min(lefts)), sizes.pop()


def _shifted(e: Emitter, total: str, groups: list, shared: tuple) -> list[str]:
    """Each group's sums out of the shared window's ``[1, Ho + dt, Wo + dl, channels]``:
    its own columns at its own shift, ``[1, Ho, Wo, its channels]``."""
    (t0, l0), (dt, dl), _ = shared
    out, c0 = [], 0
    for channels, (top, _, left, _) in groups:
        y, x = top - t0, left - l0
        ends = [y - dt if y < dt else END, x - dl if x < dl else END, c0 + len(channels)]
        out.append(e.slice(total, [y, x, c0], ends, [1, 2, 3]))
        c0 += len(channels)
    return out
