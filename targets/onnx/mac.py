"""Convolution sums on onnxruntime's integer GEMMs, with zero points 0 and no offset
encoding (§3, *Storage*).

The fast paths are onnxruntime's u8×s8 kernel. A signed int8 ``x`` is the s8 operand, whole,
against the weights' sign parts (:func:`_weights_first_sum`, in NCHW's own order: a
``ConvInteger`` of the int8 input, or a ``MatMulInteger`` of its windows); any other
``x`` is split by sign into non-negative parts and each part into base-128 digits of at most
128 (base 256, at most 255, where no weight passes 64 in magnitude), the u8 operand of an
NHWC im2col (:func:`_im2col_sum`); so each pair of products the AVX2 kernel adds in int16
fits (probed at load, :func:`u8s8_exact`).
Where it does not apply (wider weights, grouped convolutions, a kernel that fails the probe),
both operands are split by sign and into base-256 digits for u8×u8 ``ConvInteger``
(:func:`conv_sum`): u8×u8 takes 6.6 ms where s8×s8 and u8×s8 ``ConvInteger`` take 40 ms on a
3×3 64→64 convolution of 128×128 (``benchmarks/export.py``). Every partial sum of a sign pair
is a subset sum of the certified terms (§8.2); each GEMM sums few enough channels that its
int32 accumulator cannot overflow, and digit sums are recombined where their bound fits. A
runtime with no exact integer GEMM (its target's facts, :func:`_gemm_exact`) gets int32
``Mul`` and ``Add`` trees instead (:func:`_elementwise_sum`).
"""

from __future__ import annotations

import functools

import numpy as np

from .emit import I8, I32, I64, U8, Emitter, fits_i8

__all__ = ["conv_sum", "digits_of", "mac_sum", "matmul_path", "u8s8_exact"]

_I32_MAX = (1 << 31) - 1
_END = (1 << 63) - 1     # a Slice end past any dimension


def digits_of(bound: int) -> int:
    """How many base-256 digits a magnitude up to ``bound`` needs."""
    return max(1, -(-bound.bit_length() // 8))


def _x_parts(e: Emitter, x: str, lo: int, hi: int) -> list[tuple[int, int, str, int]]:
    """``(sign, digit, u8 tensor, its largest value)`` with ``x = Σ sign·256^digit·tensor``.
    ``x⁺ = max(x, 0)`` is taken on an int32 tensor and ``x⁻ = x⁺ − x`` in int64, so no
    ``Max`` ever sees an int64 past 2^31 (onnxruntime 1.24 computes that wrong, measured); an
    int64 ``x`` past i32 (acc64) takes ``x⁺`` by ``Where``."""
    if lo < -(1 << 31) or hi >= 1 << 31:
        pos = e.node("Where", [e.node("Greater", [x, e.const(0, I64)]), x, e.const(0, I64)])
        split = {1: pos, -1: e.node("Sub", [pos, x])}
    else:
        pos = e.node("Max", [x, e.const(0, I32)])
        split = {1: e.cast(pos, I64)}
        split[-1] = e.node("Sub", [split[1], e.cast(x, I64)])
    parts = []
    for sign, bound in ((1, hi), (-1, -lo)):
        if bound <= 0:
            continue
        part, n = split[sign], digits_of(bound)
        for d in range(n):
            digit = part if n == 1 else e.node("Mod", [
                e.node("Div", [part, e.const(256 ** d, I64)]), e.const(256, I64)], fmod=0)
            parts.append((sign, d, e.cast(digit, U8), bound if n == 1 else 255))
    return parts


def _w_parts(w: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    parts = []
    for sign in (1, -1):
        part = np.maximum(sign * w, 0)
        if not part.any():
            continue
        n = digits_of(int(part.max()))
        for d in range(n):
            parts.append((sign, d, ((part >> (8 * d)) & 255).astype(np.uint8)))
    return parts


def _chunk(cg: int, taps: int, x_top: int, w_top: int) -> int:
    """How many input channels one ``ConvInteger`` of these digits may sum: its int32
    accumulator holds ``chunk·taps`` products of at most ``x_top·w_top`` each."""
    return max(1, min(cg, _I32_MAX // max(1, x_top * w_top * taps)))


def conv_sum(e: Emitter, x: str, x_range: tuple[int, int], w: np.ndarray, *, groups: int,
             strides: tuple, pads: tuple, dtype: int = I64) -> str:
    """``Σ w·x̃`` of a (grouped) convolution as an int64 ``[1, cout, Ho, Wo]`` tensor.
    ``w`` is ``[cout, cin/groups, kh, kw]``; ``pads`` are ONNX's (top, left, bottom, right)."""
    cout, cg, kh, kw = w.shape
    sums, chunks = [], set()
    for xs, xd, xpart, x_top in _x_parts(e, x, *x_range):
        for ws, wd, wpart in _w_parts(w):
            chunk = cg if groups > 1 else _chunk(cg, kh * kw, x_top, int(wpart.max()))
            chunks.add(chunk)
            for c0 in range(0, cg, chunk):
                xin = xpart if chunk == cg else e.slice(xpart, [c0], [c0 + chunk], [1])
                acc = e.node("ConvInteger", [xin, e.const(wpart[:, c0:c0 + chunk], U8, "w")],
                             group=groups, strides=list(strides), pads=list(pads),
                             kernel_shape=[kh, kw])
                sums.append((xs * ws * 256 ** (xd + wd), acc))
    if not sums:  # every weight is 0, or x is identically 0: the sum is 0
        zero = e.node("ConvInteger", [e.cast(e.node("Sub", [x, x]), U8),
                                      e.const(np.zeros_like(w), U8, "w")],
                      group=groups, strides=list(strides), pads=list(pads), kernel_shape=[kh, kw])
        return e.cast(zero, dtype)
    if all(abs(scale) == 1 for scale, _ in sums) and chunks == {cg}:
        # One digit each: every running total is a signed sum of whole sign-pair sums, a
        # subset sum of the certified terms, so it stays in int32 (the graph meets acc32).
        total = None
        for scale, acc in sums:
            total = acc if total is None and scale == 1 else e.node(
                "Add" if scale == 1 else "Sub",
                [total if total is not None else e.const(0, I32), acc])
        return _typed(e, total, I32, dtype)
    total = None
    for scale, acc in sums:
        term = e.cast(acc, I64)
        if scale != 1:
            term = e.node("Mul", [term, e.const(scale, I64)])
        total = term if total is None else e.node("Add", [total, term])
    return _typed(e, total, I64, dtype)


def _support(w: np.ndarray, pads: tuple) -> list[tuple]:
    """Per output channel, how many all-zero kernel rows (top, bottom) and columns (left,
    right) it has, each at most the padding on that side (a trim past it would need a
    negative pad)."""
    out = []
    for wo in w:
        rows, cols = np.flatnonzero(wo.any(axis=(0, 2))), np.flatnonzero(wo.any(axis=(0, 1)))
        out.append(_trim(rows, cols, w.shape, pads) if rows.size else (0, 0, 0, 0))
    return out


def _trim(rows, cols, shape: tuple, pads: tuple) -> tuple:
    """The kernel rows above and below the sorted ``rows`` a kernel of ``shape`` uses, and
    its columns left and right of ``cols``: ``(top, bottom, left, right)``, each at most the
    padding on that side."""
    kh, kw = shape[2:]
    return (min(rows[0], pads[0]), min(kh - 1 - rows[-1], pads[2]),
            min(cols[0], pads[1]), min(kw - 1 - cols[-1], pads[3]))


def _trimmed(w: np.ndarray, pads: tuple, trim: tuple) -> tuple[np.ndarray, tuple]:
    """``w`` without the border rows and columns ``trim`` names, and the padding reduced to
    match, so every output position reads the same input elements."""
    top, bottom, left, right = trim
    kh, kw = w.shape[2:]
    return (w[:, :, top:kh - bottom, left:kw - right],
            (pads[0] - top, pads[1] - left, pads[2] - bottom, pads[3] - right))


def _by_trim(trims: list) -> list[tuple[list[int], tuple]]:
    """The output channels of each kind in ``trims`` (one per channel: its trim, or the taps
    its weights use), with it, in order of each kind's first channel."""
    return [([o for o, t in enumerate(trims) if t == kind], kind)
            for kind in dict.fromkeys(trims)]


def _joined(e: Emitter, sums: list[str], order: list[int], axis: int) -> str:
    """The groups' ``sums`` joined on ``axis``, whose channels ``order`` lists group by
    group, put in channel order (no ``Gather`` where they are in it already)."""
    total = sums[0] if len(sums) == 1 else e.node("Concat", sums, axis=axis)
    if order != sorted(order):
        total = e.node("Gather", [total, e.const(np.argsort(order), I64)], axis=axis)
    return total


def mac_sum(e: Emitter, x: str, x_range: tuple[int, int], w: np.ndarray, target, *,
            groups: int, strides: tuple, pads: tuple, dtype: int = I64,
            u8s8: bool | None = None, nhwc_read: bool = False) -> str:
    """The convolution sum on the target's MAC array, as ``dtype`` (int32 only where the
    caller knows the sum fits, as every acc32 sum does); ``u8s8`` is the probe's verdict for
    the provider the model will run on (:func:`u8s8_exact` on the CPU's when None);
    ``nhwc_read``: the sum's reader takes an NHWC twin where there is one
    (:func:`matmul_path`). Output
    channels whose kernels share
    all-zero border rows or columns (the phase form's missing taps, §9.3) are summed
    together on the trimmed kernel, the padding reduced to match, so no zero tap is
    multiplied; zero weights add zero terms, so the sums are the same integers. The
    ``MatMulInteger`` path takes the whole kernel in one GEMM instead: one im2col and one
    product beat one per trimmed kernel there (14.0 against 20.9 ms on the realistic
    ``int_synth``, measured)."""
    if e.storage == I64 and -(1 << 31) <= x_range[0] and x_range[1] < 1 << 31:
        x = e.cast(x, I32)   # an acc64 graph's tensor whose certified values fit i32
    path = matmul_path(e, x_range, w, target, groups, u8s8, nhwc_read)
    if path == "weights-first":
        return _weights_first_sum(e, x, x_range, w, strides=strides, pads=pads, dtype=dtype)
    if path == "x-first":
        return _im2col_sum(e, x, x_range, w, strides=strides, pads=pads, dtype=dtype)
    if target is not None and not target.conv_integer and groups == 1 and \
            _subset_sums_fit_i32(x_range, w):
        return _im2col_i32_sum(e, x, w, strides=strides, pads=pads, dtype=dtype)
    trims = _support(w, pads) if groups == 1 else [(0, 0, 0, 0)] * w.shape[0]
    kinds = _by_trim(trims)
    if len(kinds) == 1 and kinds[0][1] == (0, 0, 0, 0):
        return _mac_sum(e, x, x_range, w, target, groups=groups, strides=strides, pads=pads,
                        dtype=dtype)
    parts, order = [], []
    for channels, trim in kinds:
        sub, reduced = _trimmed(w[channels], pads, trim)
        parts.append(_mac_sum(e, x, x_range, sub, target, groups=1, strides=strides,
                              pads=reduced, dtype=dtype))
        order += channels
    return _joined(e, parts, order, 1)


def matmul_path(e: Emitter, x_range: tuple[int, int], w: np.ndarray, target, groups: int,
                u8s8: bool | None, nhwc_read: bool = False) -> str | None:
    """Which ``MatMulInteger`` u8×s8 path :func:`mac_sum` takes for these operands on
    ``e``'s target: ``"weights-first"`` (:func:`_weights_first_sum`, a signed int8 ``x``
    whose sum is read NCHW), ``"x-first"`` (:func:`_im2col_sum`, whose sum comes with an
    NHWC twin), or ``None`` (``target``: the description :func:`mac_sum` is given).
    ``nhwc_read``: the sum's reader takes the twin (a ``pixel_shuffle`` whose order the conv
    folds, :mod:`.lower.conv`); there the twin saves the shuffle's moves and the next
    GEMM's, which outweighs the weights-first product's own lead (the realistic
    ``int_synth`` 0.90× at a 16×16 latent, 1.00× at 64×64, with its first layer x-first,
    measured), where the target's description says so (``nhwc_sums``: not TVM's, 2.2× the
    time there), its runtime computes the x-first gather's int64 index arithmetic exactly
    (not tract's, which takes the weights-first product's strided windows) and the sign
    parts join in one GEMM (:func:`_signs_join`; the transposed stack x first with its sign
    parts apart took 1.03× the time of weights first, joined 0.96×, measured)."""
    if not (_on_matmul(x_range, w, target, groups) and e.exact("MatMulInteger", U8) and
            (u8s8_exact() if u8s8 is None else u8s8)):
        return None
    if x_range[0] < 0 and fits_i8(x_range) and w[0].size * 128 * 128 <= _I32_MAX and not (
            nhwc_read and (target is None or target.nhwc_sums) and _signs_join(w, 128)
            and all(e.exact(op, I64) for op in ("Add", "Mul", "Div"))):
        return "weights-first"
    return "x-first"


@functools.cache
def u8s8_exact(provider: str = "CPUExecutionProvider") -> bool:
    """Whether this onnxruntime computes ``MatMulInteger`` u8×s8 exactly on ``provider`` (CPU
    fallback disabled) at the worst case our digits reach (:data:`.probes.SATURATION`: the
    CPU's AVX2 kernel adds pairs of products in int16, and two products of ``128 × −128`` or
    ``128 × 127`` still fit). Probed once per process and provider; it rules out pair
    saturation, not every possible error; a provider that cannot run the probe fails it.
    An engine of another runtime asks its own runtime the same (``ModelEngine.probe``)."""
    import onnxruntime as ort

    from .probes import PROBES, SATURATION
    probe = next(p for p in PROBES if p.name == SATURATION)
    from .format import quiet
    opts = quiet(ort, provider)
    try:
        got = ort.InferenceSession(probe.model(), opts, providers=[provider]).run(
            None, dict(probe.feed))[0]
    except Exception:   # onnxruntime raises its own types: the provider cannot run the probe
        return False
    return probe.wrong(got) is None


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
                low = e.node("BitwiseAnd", [rest, e.const(base - 1, I32)]) \
                    if e.exact("BitwiseAnd", I32) else None
                rest = e.node("Div", [rest, e.const(base, I32)])
                digit = low or e.node("Sub", [digit, e.node("Mul", [rest, e.const(base, I32)])])
            u = e.cast(digit, U8) if twin else \
                e.node("Transpose", [e.cast(digit, U8)], perm=[0, 2, 3, 1])
            parts.append((sign * base ** k, u, top))
    return parts


def _im2cols(e: Emitter, planes: list[str], c: int, kh: int, kw: int, strides: tuple,
             pads: tuple, trims: tuple = ((0, 0, 0, 0),)) -> tuple[list[list[str]], str, str]:
    """The rows ``[Ho·Wo, kh·kw·c]`` of each NHWC plane ``[1, H, W, c]`` of ``planes`` (all
    one shape): padded, flattened to ``[Hp·Wp, c]`` and gathered by one ``Gather`` of the
    taps' row indices, built once at run time from the shape and shared, so no transpose
    and one copy a plane; with the names of ``Ho`` and ``Wo``. The indices are each window's
    start ``[Ho·Wo, 1]`` plus each tap's offset ``[1, kh·kw]``: onnxruntime broadcasts that
    in 0.9 ms for 256 × 256 windows of 3 × 3, where ``[Ho, 1, kh, 1] + [1, Wo, 1, kw]``
    took 2.7 ms (measured)."""
    sh, sw = strides
    padded = [e.node("Pad", [u, e.const([0, pads[0], pads[1], 0, 0, pads[2], pads[3], 0],
                                        I64)]) for u in planes]
    hp, wp = e.dim(padded[0], 1), e.dim(padded[0], 2)
    ho = e.node("Add", [e.over(e.node("Sub", [hp, e.const([kh], I64)]), sh), e.const([1], I64)])
    wo = e.node("Add", [e.over(e.node("Sub", [wp, e.const([kw], I64)]), sw), e.const([1], I64)])
    scalar = lambda d: e.node("Squeeze", [d, e.const([0], I64)])  # noqa: E731
    step = lambda d, k: e.node("Range", [e.const(0, I64), scalar(e.times(d, k)),  # noqa: E731
                                         e.const(k, I64)])
    starts = e.node("Add", [e.node("Mul", [e.reshape(step(ho, sh), [-1, 1]), wp]),
                            e.reshape(step(wo, sw), [1, -1])])
    starts, flat = e.reshape(starts, [-1, 1]), [e.reshape(u, [-1, c]) for u in padded]
    rows = [[] for _ in padded]
    for top, bottom, left, right in trims:
        taps = e.node("Add", [
            e.node("Mul", [e.const(np.arange(top, kh - bottom).reshape(-1, 1), I64), wp]),
            e.const(np.arange(left, kw - right).reshape(1, -1), I64)])
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
_GROUPED = 0.8


#: The fewest output channels a group of :func:`_column_groups` may have: a GEMM of a few
#: columns runs far below the kernel's peak, so the realistic ``int_synth``'s last layer
#: (3 channels a phase) keeps one product (grouping it too took 1.18× the time at a 64×64
#: latent, 1.19× at 16×16, interleaved), while grouping its first two layers' phases (128
#: and 64 channels) makes the whole 0.87× the time at 64×64, 0.92× at 16×16 (measured).
_COLUMNS = 32


def _column_groups(w: np.ndarray, pads: tuple) -> list[tuple[list[int], tuple]]:
    """The output channels of ``w`` by their trimmed kernel (:func:`_support`), each group
    with its trims, where that leaves out at least a fifth of the products and every group
    has :data:`_COLUMNS` channels or more; else one group of every channel, untrimmed."""
    cout, _, kh, kw = w.shape
    groups = _by_trim(_support(w, pads))
    products = sum(len(c) * (kh - t - b) * (kw - left - r) for c, (t, b, left, r) in groups)
    if len(groups) == 1 or products > _GROUPED * kh * kw * cout or \
            min(len(c) for c, _ in groups) < _COLUMNS:
        return [(list(range(cout)), (0, 0, 0, 0))]
    return groups


def _im2col_sum(e: Emitter, x: str, x_range: tuple[int, int], w: np.ndarray, *,
                strides: tuple, pads: tuple, dtype: int) -> str:
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
    sums a shifted window of the result (:func:`_shared_window`). Where ``x``'s range needs
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
    last = min(base, 255)                       # the most one u8 digit of ``base`` holds
    few = (max(x_range[0], -last), min(x_range[1], last))
    if few == x_range or e.target is None or not e.target.skips_digits:
        nhwc = _nhwc_sum(e, x, x_range, w, base, strides=strides, pads=pads, dtype=dtype)
    else:
        seen = e.nhwc.get(x) or x
        ends = [("Less", "ReduceMax", last + 1)] if few[1] < x_range[1] else []
        ends += [("Greater", "ReduceMin", -last - 1)] if few[0] > x_range[0] else []
        fits = [e.node(op, [e.node(reduce, [seen], keepdims=0), e.const(end, I32)])
                for op, reduce, end in ends]
        fit = fits[0] if len(fits) == 1 else e.node("And", fits)
        with e.branch() as one:
            small = _nhwc_sum(e, x, few, w, base, strides=strides, pads=pads, dtype=dtype)
        with e.branch() as every:
            whole = _nhwc_sum(e, x, x_range, w, base, strides=strides, pads=pads, dtype=dtype)
        nhwc = e.when(fit, (one, small), (every, whole), dtype)
    total = e.node("Transpose", [nhwc], perm=[0, 3, 1, 2])
    e.nhwc[total] = nhwc
    return total


def _signs_join(w: np.ndarray, top: int) -> bool:
    """Whether an input's two sign parts, each at most ``top``, may be multiplied by
    ``[w; −w]`` in one GEMM: ``−w`` is an int8 (no weight is −128) and the sum of
    ``2·cin·taps`` products of at most ``top·max|w|`` fits the int32 accumulator."""
    return int(w.min()) > -128 and \
        2 * w[0].size * top * max(1, int(np.abs(w).max())) <= _I32_MAX


def _signs_joined(e: Emitter, parts: list, w: np.ndarray) -> list[tuple]:
    """``parts`` (:func:`_nhwc_parts`, ``(scale, u8 NHWC plane, top)``) as ``(scale, plane,
    top, signs)``: each digit's two sign parts joined on the channels, ``[x⁺, x⁻]`` with
    ``signs`` ``(1, −1)``, for one GEMM by ``[w; −w]`` where :func:`_signs_join` allows,
    in place of two GEMMs and the difference of their sums (the realistic ``int_synth``
    0.96× the time at a 16×16 latent, 0.98× at 64×64; the transposed stack, x first, 0.96×,
    interleaved). Each element has one sign part 0, so the GEMM sums the same terms; a
    part without a twin keeps ``signs`` ``(1,)``."""
    out, paired = [], set()
    for k, (scale, u, top) in enumerate(parts):
        if k in paired:
            continue
        twin = next((j for j, part in enumerate(parts) if part[0] == -scale), None) \
            if scale > 0 else None
        both = None if twin is None else max(top, parts[twin][2])
        if twin is not None and _signs_join(w, both):
            paired.add(twin)
            out.append((scale, e.node("Concat", [u, parts[twin][1]], axis=3), both, (1, -1)))
        else:
            out.append((scale, u, top, (1,)))
    return out


def _nhwc_sum(e: Emitter, x: str, x_range: tuple[int, int], w: np.ndarray, base: int, *,
              strides: tuple, pads: tuple, dtype: int) -> str:
    """:func:`_im2col_sum`'s product for ``x`` in ``x_range`` (not all 0), in digits of
    ``base``: ``[1, Ho, Wo, cout]`` as ``dtype``."""
    cout, cin, kh, kw = w.shape
    wmax = max(1, int(np.abs(w).max()))
    parts = _nhwc_parts(e, x, *x_range, base)
    bound = sum(abs(scale) * top * wmax * kh * kw * cin for scale, _, top in parts)
    pieces = []      # (scale, u8 NHWC plane, first channel, channels, signs of its blocks)
    for scale, u, top, signs in _signs_joined(e, parts, w):
        chunk = cin if len(signs) > 1 else _chunk(cin, kh * kw, top, wmax)
        pieces += [(scale, u if chunk == cin else e.slice(u, [c0], [c0 + chunk], [3]), c0,
                    min(chunk, cin - c0), signs) for c0 in range(0, cin, chunk)]
    groups = _column_groups(w, pads)
    shared = _shared_window(groups, strides, (kh, kw))
    kernel, trims = (kh, kw), tuple(trim for _, trim in groups)
    if shared:
        (t0, l0), (dt, dl), (sh, sw) = shared
        kernel, trims = (kh - dt, kw - dl), ((t0, kh - dt - t0 - sh, l0, kw - dl - l0 - sw),)
    rows = {}
    widths = [p[3] * len(p[4]) for p in pieces]
    for n in sorted(set(widths)):   # one index a width, shared by its gathers
        group = [k for k, width in enumerate(widths) if width == n]
        got, ho, wo = _im2cols(e, [pieces[k][1] for k in group], n, *kernel, strides, pads,
                               trims)
        rows.update(zip(group, got))
    wide = bound > _I32_MAX
    blocks = [np.transpose(_trimmed(w[channels], pads, trim)[0], (2, 3, 1, 0))
              for channels, trim in groups]
    if shared:
        blocks = [np.concatenate(blocks, axis=3)]
    totals = []
    for g, wg in enumerate(blocks):
        total = None
        for k, (scale, _, c0, n, signs) in enumerate(pieces):
            ws = np.concatenate([sign * wg[:, :, c0:c0 + n] for sign in signs], axis=2)
            acc = e.node("MatMulInteger", [rows[k][g], e.const(
                ws.reshape(-1, wg.shape[3]), I8, "w")])
            term = e.cast(acc, I64) if wide else acc
            if abs(scale) != 1:
                term = e.node("Mul", [term, e.const(abs(scale), I64 if wide else I32)])
            total = (term if scale > 0 else e.node("Neg", [term])) if total is None else \
                e.node("Add" if scale > 0 else "Sub", [total, term])
        totals.append(e.reshape(total, [1, ho, wo, wg.shape[3]]))
    if shared:
        totals = _shifted(e, totals[0], groups, shared)
    total = _joined(e, totals, [o for channels, _ in groups for o in channels], 3)
    return _typed(e, total, I64 if wide else I32, dtype)


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
    return (min(tops), min(lefts)), (max(tops) - min(tops), max(lefts) - min(lefts)), \
        sizes.pop()


def _shifted(e: Emitter, total: str, groups: list, shared: tuple) -> list[str]:
    """Each group's sums out of the shared window's ``[1, Ho + dt, Wo + dl, channels]``:
    its own columns at its own shift, ``[1, Ho, Wo, its channels]``."""
    (t0, l0), (dt, dl), _ = shared
    out, c0 = [], 0
    for channels, (top, _, left, _) in groups:
        y, x = top - t0, left - l0
        ends = [y - dt if y < dt else _END, x - dl if x < dl else _END, c0 + len(channels)]
        out.append(e.slice(total, [y, x, c0], ends, [1, 2, 3]))
        c0 += len(channels)
    return out


def _weights_first_sum(e: Emitter, x: str, x_range: tuple[int, int], w: np.ndarray, *,
                       strides: tuple, pads: tuple, dtype: int) -> str:
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
    result is transposed: 10.2 against 14.6 ms for :func:`_im2col_sum` there. Output
    channels are summed in groups of equal support (the taps where their weights are not
    all zero), one product per group (a ``ConvInteger``'s on the group's bounding kernel,
    its padding reduced to match), where that leaves out at least a fifth of the products
    (:data:`_GROUPED`; the phase form's missing taps, §9.3: 4 groups of 4 taps instead of 9
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
    support = [s or some for s in support]   # a channel of zero weights joins a group
    groups = _by_trim(support)   # by first channel: phase-major needs no reorder
    if sum(len(rows) * len(kind) for rows, kind in groups) > _GROUPED * len(every) * cout:
        groups = [(list(range(cout)), every)]
    wide = 2 * len(every) * cin * 128 * 128 > _I32_MAX
    if e.exact("ConvInteger", I8):
        axis, x8 = 1, e.cast(x, I8)

        def product(rows: list, kind: tuple) -> str:
            taps = np.array(kind)
            sub, reduced = _trimmed(w[rows], pads, _trim(
                np.unique(taps // kw), np.unique(taps % kw), w.shape, pads))
            attrs = dict(strides=list(strides), kernel_shape=list(sub.shape[2:]),
                         pads=list(reduced))
            return _signed(e, sub, lambda ws: e.node("ConvInteger", [x8, ws], **attrs), axis,
                           wide)
    else:
        axis = 0
        xp = e.node("Pad", [e.node("Squeeze", [e.cast(x, I8), e.const([0], I64)]),
                            e.const([0, pads[0], pads[1], 0, pads[2], pads[3]], I64)])
        windows = {t: _window(e, xp, t // kw, t % kw, (kh, kw), [1, 2], strides)
                   for t in every}

        def product(rows: list, kind: tuple) -> str:
            cols = e.node("Concat", [windows[t] for t in kind], axis=0) if len(kind) > 1 \
                else windows[kind[0]]
            wk = np.transpose(w[rows].reshape(len(rows), cin, -1)[:, :, kind], (0, 2, 1))
            cols = e.reshape(cols, [len(kind) * cin, -1])
            return _signed(e, wk.reshape(len(rows), -1),
                           lambda ws: e.node("MatMulInteger", [ws, cols]), axis, wide)
    total = _joined(e, [product(rows, kind) for rows, kind in groups],
                    [o for rows, _ in groups for o in rows], axis)
    if axis == 0:   # the product's rows by the windows' positions
        first = windows[every[0]]
        total = e.reshape(total, [1, cout, e.dim(first, 1), e.dim(first, 2)])
    return _typed(e, total, I64 if wide else I32, dtype)


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


def _window(e: Emitter, xp: str, i: int, j: int, kernel: tuple, axes: list,
            strides: tuple) -> str:
    """Tap ``(i, j)``'s window of the padded input ``xp`` on its two spatial ``axes``: the
    rows and columns it reads for every output position, by a strided ``Slice`` (whose end
    past an axis is clamped)."""
    end = [t + 1 - k if t + 1 < k else 1 << 62 for t, k in zip((i, j), kernel)]
    return e.slice(xp, [i, j], end, axes, strides)


def _typed(e: Emitter, x: str, have: int, want: int) -> str:
    """``x``, an integer tensor of type ``have``, as type ``want``."""
    return x if have == want else e.cast(x, want)


def _subset_sums_fit_i32(x_range: tuple[int, int], w: np.ndarray) -> bool:
    """Whether every sum of any subset of an output channel's terms ``w·x`` (``x`` in
    ``x_range``) lies in i32: the sum of each term's most negative and most positive value."""
    lo, hi = x_range
    w = w.reshape(w.shape[0], -1).astype(object)
    ends = (w * lo, w * hi)
    low = np.minimum(np.minimum(*ends), 0).sum(axis=1)
    high = np.maximum(np.maximum(*ends), 0).sum(axis=1)
    return bool(low.min() >= -(1 << 31) and high.max() <= _I32_MAX)


def _im2col_i32_sum(e: Emitter, x: str, w: np.ndarray, *, strides: tuple, pads: tuple,
                    dtype: int) -> str:
    """``Σ w·x̃`` of a groups-1 convolution as one int32 ``MatMul`` over the NHWC im2col of
    ``x``, for a runtime without ``ConvInteger`` (its target's ``conv_integer``): the caller
    has checked that every partial sum, in any order, fits i32 (:func:`_subset_sums_fit_i32`,
    §8.2)."""
    cout, cin, kh, kw = w.shape
    u = e.node("Transpose", [e.cast(x, I32)], perm=[0, 2, 3, 1])
    ((rows,),), ho, wo = _im2cols(e, [u], cin, kh, kw, strides, pads)
    w2 = np.transpose(w, (2, 3, 1, 0)).reshape(kh * kw * cin, cout)
    acc = e.node("MatMul", [rows, e.const(w2, I32, "w")])
    total = e.node("Transpose", [e.reshape(acc, [1, ho, wo, cout])], perm=[0, 3, 1, 2])
    return _typed(e, total, I32, dtype)


def _gemm_exact(e: Emitter) -> bool:
    """Whether the target's runtime has an integer GEMM it computes exactly: ``ConvInteger``
    or ``MatMulInteger`` on u8, or int32 ``MatMul``."""
    return e.exact("ConvInteger", U8) or e.exact("MatMulInteger", U8) or e.exact("MatMul", I32)


#: The most products one ``Mul`` of :func:`_elementwise_sum` forms per output position: its
#: tensor is 32 KiB per position (38 MiB on a 34 × 34 plane), and fewer, larger blocks mean
#: fewer nodes (the realistic ``int_synth`` set: 4,312 nodes at 4,096, 2,737 at 8,192, and
#: OpenVINO's compile time follows the node count, 4.5 s against 2.3 s).
_PRODUCTS = 8192


def _elementwise_sum(e: Emitter, x: str, w: np.ndarray, *, strides: tuple, pads: tuple,
                     dtype: int) -> str:
    """``Σ w·x̃`` of a groups-1 convolution from int32 ``Mul`` and ``Add`` alone, for a
    runtime that computes every integer GEMM and reduction through float (OpenVINO,
    measured): the taps' windows of the padded input (strided slices, the taps whose
    weights are all zero left out) stacked on the channel axis, times the weights in blocks
    of at most :data:`_PRODUCTS` products per output position, broadcast, each block summed
    over the stacked axis by a tree of ``Slice`` halves and ``Add``, the blocks added. Every
    partial sum is a sum of some of an output channel's terms, which the caller has checked
    fits i32 (:func:`_subset_sums_fit_i32`, §8.2)."""
    cout, cin, kh, kw = w.shape
    xp = e.node("Pad", [x if e.storage == I32 else e.cast(x, I32),
                        e.const([0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]], I64)])
    taps = [(i, j) for i in range(kh) for j in range(kw) if w[:, :, i, j].any()]
    if not taps:
        taps = [(0, 0)]
    windows = [_window(e, xp, i, j, (kh, kw), [2, 3], strides) for i, j in taps]
    cols = windows[0] if len(windows) == 1 else e.node("Concat", windows, axis=1)
    cols = e.node("Unsqueeze", [cols, e.const([1], I64)])
    k = cin * len(taps)
    w2 = np.stack([w[:, :, i, j] for i, j in taps], axis=1).reshape(cout, k)
    oc = min(cout, _PRODUCTS)
    kc = max(1, _PRODUCTS // oc)
    sums = []
    for o0 in range(0, cout, oc):
        acc = None
        for k0 in range(0, k, kc):
            part = w2[o0:o0 + oc, k0:k0 + kc]
            window = cols if part.shape[1] == k else e.slice(cols, [k0], [k0 + kc], [2])
            t = _halves(e, e.node("Mul", [window, e.const(part[None, :, :, None, None], I32,
                                                              "w")]), part.shape[1])
            acc = t if acc is None else e.node("Add", [acc, t])
        sums.append(acc)
    total = sums[0] if len(sums) == 1 else e.node("Concat", sums, axis=1)
    total = e.node("Squeeze", [total, e.const([2], I64)])
    return _typed(e, total, I32, dtype)


def _halves(e: Emitter, t: str, n: int) -> str:
    """The sum over axis 2 (of ``n``) of ``t`` by a tree of ``Slice`` halves and ``Add``."""
    while n > 1:
        h = n // 2
        half = e.node("Add", [e.slice(t, [0], [h], [2]), e.slice(t, [h], [2 * h], [2])])
        t = half if n % 2 == 0 else e.node("Concat", [half, e.slice(t, [2 * h], [n], [2])],
                                           axis=2)
        n = h + n % 2
    return t


def _on_matmul(x_range: tuple[int, int], w: np.ndarray, target, groups: int) -> bool:
    """Whether a convolution can take :func:`_im2col_sum`: groups 1, int8 weights, an ``x``
    whose negation fits i32, a target not of 8-bit operands (the probe decides the rest)."""
    return (target is None or target.mac_bits != 8 or not target.conv_integer) and groups == 1 and \
        -(1 << 31) < x_range[0] and x_range[1] < 1 << 31 and -128 <= int(w.min()) and \
        int(w.max()) <= 127


def _mac_sum(e: Emitter, x: str, x_range: tuple[int, int], w: np.ndarray, target, *,
             groups: int, strides: tuple, pads: tuple, dtype: int) -> str:
    """One sum: one s8×s8 ``ConvInteger`` for a target of 8-bit operands (the rewrite
    pipeline has checked they fit), :func:`_elementwise_sum` for a runtime without an exact
    integer GEMM, else :func:`conv_sum`."""
    if not _gemm_exact(e) and groups == 1 and _subset_sums_fit_i32(x_range, w):
        return _elementwise_sum(e, x, w, strides=strides, pads=pads, dtype=dtype)
    if target is not None and target.mac_bits == 8:
        kh, kw = w.shape[2:]
        acc = e.node("ConvInteger", [e.cast(x, I8), e.const(w, I8, "w")], group=groups,
                     strides=list(strides), pads=list(pads), kernel_shape=[kh, kw])
        return _typed(e, acc, I32, dtype)
    return conv_sum(e, x, x_range, w, groups=groups, strides=strides, pads=pads, dtype=dtype)
