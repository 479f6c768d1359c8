"""Convolution sums on onnxruntime's integer GEMMs, with zero points 0 and no offset
encoding (§3, *Storage*): the choice among the strategies, each a module of its own
(:mod:`.digits`, :mod:`.nhwc`, :mod:`.weights_first`, :mod:`.elementwise`).

The fast paths are onnxruntime's u8×s8 kernel. A signed int8 ``x`` is the s8 operand, whole,
against the weights' sign parts (:func:`weights_first_sum`, in NCHW's own order: a
``ConvInteger`` of the int8 input, or a ``MatMulInteger`` of its windows); any other
``x`` is split by sign into non-negative parts and each part into base-128 digits of at most
128 (base 256, at most 255, where no weight passes 64 in magnitude), the u8 operand of an
NHWC im2col (:func:`im2col_sum`); so each pair of products the AVX2 kernel adds in int16
fits (probed at load, :func:`u8s8_exact`).
Where it does not apply (wider weights, grouped convolutions, a kernel that fails the probe),
both operands are split by sign and into base-256 digits for u8×u8 ``ConvInteger``
(:func:`conv_sum`): u8×u8 takes 6.6 ms where s8×s8 and u8×s8 ``ConvInteger`` take 40 ms on a
3×3 64→64 convolution of 128×128 (``benchmarks/export.py``). Every partial sum of a sign pair
is a subset sum of the certified terms (§8.2); each GEMM sums few enough channels that its
int32 accumulator cannot overflow, and digit sums are recombined where their bound fits. A
runtime with no exact integer GEMM (its target's facts, :func:`gemm_exact`) gets chains of
int32 ``Mul`` and ``Add`` instead (:func:`elementwise_sum`), over Winograd's transformed
inputs where that fits and pays (:func:`winograd_sum`: 16 products for four outputs of a
3×3 kernel where 36).
"""

from __future__ import annotations

import functools

import numpy as np

from ..emit import I8, I32, I64, U8, Emitter, fits_i8
from ..requant import has_int64
from .common import I32_MAX, by_trim, joined, signs_join, support, trimmed, typed
from .digits import conv_sum
from .elementwise import elementwise_sum, gemm_exact, im2col_i32_sum, subset_sums_fit_i32
from .nhwc import im2col_sum
from .winograd import winograd_bound, winograd_sum
from .weights_first import weights_first_sum

__all__ = ["conv_sum", "mac_sum", "matmul_path", "u8s8_exact"]


def mac_sum(
    e: Emitter,
    x: str,
    x_range: tuple[int, int],
    w: np.ndarray,
    target,
    *,
    groups: int,
    strides: tuple,
    pads: tuple,
    dtype: int = I64,
    u8s8: bool | None = None,
    nhwc_read: bool = False,
    room: int = 0,
) -> str:
    """The convolution sum on the target's MAC array, as ``dtype`` (int32 only where the
    caller knows the sum fits, as every acc32 sum does); ``u8s8`` is the probe's verdict for
    the provider the model will run on (:func:`u8s8_exact` on the CPU's when None);
    ``nhwc_read``: the sum's reader takes an NHWC twin where there is one
    (:func:`matmul_path`); ``room``: how many bits of scale the sum's requantisation takes
    into its shifts (:func:`..requant.room`), the channels of a sum left scaled named in
    ``e.scaled``. Output
    channels whose kernels share
    all-zero border rows or columns (the phase form's missing taps, §9.3) are summed
    together on the trimmed kernel, the padding reduced to match, so no zero tap is
    multiplied; zero weights add zero terms, so the sums are the same integers. The
    ``MatMulInteger`` path takes the whole kernel in one GEMM instead: one im2col and one
    product beat one per trimmed kernel there (14.0 against 20.9 ms on the realistic
    ``int_synth``, measured)."""
    if e.storage == I64 and -(1 << 31) <= x_range[0] and x_range[1] < 1 << 31:
        x = e.cast(x, I32)  # an acc64 graph's tensor whose certified values fit i32
    path = matmul_path(e, x_range, w, target, groups, u8s8, nhwc_read)
    if path == "weights-first":
        return weights_first_sum(e, x, x_range, w, strides=strides, pads=pads, dtype=dtype)
    if path == "x-first":
        return im2col_sum(e, x, x_range, w, strides=strides, pads=pads, dtype=dtype)
    if (
        target is not None
        and not target.options.conv_integer
        and groups == 1
        and subset_sums_fit_i32(x_range, w)
    ):
        return im2col_i32_sum(e, x, w, strides=strides, pads=pads, dtype=dtype)
    trims = support(w, pads) if groups == 1 else [(0, 0, 0, 0)] * w.shape[0]
    kinds = by_trim(trims)
    if len(kinds) == 1 and kinds[0][1] == (0, 0, 0, 0):
        return _mac_sum(
            e,
            x,
            x_range,
            w,
            target,
            groups=groups,
            strides=strides,
            pads=pads,
            dtype=dtype,
            room=room,
        )
    parts, order = [], []
    for channels, trim in kinds:
        sub, reduced = trimmed(w[channels], pads, trim)
        parts.append(
            _mac_sum(
                e,
                x,
                x_range,
                sub,
                target,
                groups=1,
                strides=strides,
                pads=reduced,
                dtype=dtype,
                room=room,
            )
        )
        order += channels
    total = joined(e, parts, order, 1)
    scales = [t for p, (cs, _) in zip(parts, kinds) for t in e.scaled.get(p, [0] * len(cs))]
    if any(scales):
        e.scaled[total] = [scales[i] for i in np.argsort(order)]
    return total


def matmul_path(
    e: Emitter,
    x_range: tuple[int, int],
    w: np.ndarray,
    target,
    groups: int,
    u8s8: bool | None,
    nhwc_read: bool = False,
) -> str | None:
    """Which ``MatMulInteger`` u8×s8 path :func:`mac_sum` takes for these operands on
    ``e``'s target: ``"weights-first"`` (:func:`weights_first_sum`, a signed int8 ``x``
    whose sum is read NCHW), ``"x-first"`` (:func:`im2col_sum`, whose sum comes with an
    NHWC twin), or ``None`` (``target``: the description :func:`mac_sum` is given).
    ``nhwc_read``: the sum's reader takes the twin (a ``pixel_shuffle`` whose order the conv
    folds, :mod:`.lower.conv`); there the twin saves the shuffle's moves and the next
    GEMM's, which outweighs the weights-first product's own lead (the realistic
    ``int_synth`` 0.90× at a 16×16 latent, 1.00× at 64×64, with its first layer x-first,
    measured), where the target's description says so (``nhwc_sums``: not TVM's, 2.2× the
    time there), its runtime computes the x-first gather's int64 index arithmetic exactly
    (not tract's, which takes the weights-first product's strided windows) and the sign
    parts join in one GEMM (:func:`signs_join`; the transposed stack x first with its sign
    parts apart took 1.03× the time of weights first, joined 0.96×, measured)."""
    if not (
        _on_matmul(x_range, w, target, groups)
        and e.exact("MatMulInteger", U8)
        and (u8s8_exact() if u8s8 is None else u8s8)
    ):
        return None
    if (
        x_range[0] < 0
        and fits_i8(x_range)
        and w[0].size * 128 * 128 <= I32_MAX
        and not (
            nhwc_read
            and (target is None or target.options.nhwc_sums)
            and signs_join(w, 128)
            and has_int64(e)
        )
    ):
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
    import onnxruntime as ort  # optional; format and probes: a cycle (format → export → mac)

    from ..format import quiet
    from ..probes import PROBES, SATURATION

    probe = next(p for p in PROBES if p.name == SATURATION)
    opts = quiet(ort, provider)
    try:
        got = ort.InferenceSession(probe.model(), opts, providers=[provider]).run(
            None, dict(probe.feed)
        )[0]
    except Exception:  # onnxruntime raises its own types: the provider cannot run the probe
        return False
    return probe.wrong(got) is None


def _on_matmul(x_range: tuple[int, int], w: np.ndarray, target, groups: int) -> bool:
    """Whether a convolution can take :func:`im2col_sum`: groups 1, int8 weights, an ``x``
    whose negation fits i32, a target not of 8-bit operands (the probe decides the rest)."""
    return (
        (target is None or target.mac_bits != 8 or not target.options.conv_integer)
        and groups == 1
        and -(1 << 31) < x_range[0]
        and x_range[1] < 1 << 31
        and -128 <= int(w.min())
        and int(w.max()) <= 127
    )


def _mac_sum(
    e: Emitter,
    x: str,
    x_range: tuple[int, int],
    w: np.ndarray,
    target,
    *,
    groups: int,
    strides: tuple,
    pads: tuple,
    dtype: int,
    room: int = 0,
) -> str:
    """One sum: one s8×s8 ``ConvInteger`` for a target of 8-bit operands (the rewrite
    pipeline has checked they fit), :func:`winograd_sum` or else :func:`elementwise_sum` for
    a runtime without an exact integer GEMM, else :func:`conv_sum`."""
    if not gemm_exact(e) and groups == 1:
        top = winograd_bound(x_range, w, strides)
        if top is not None:
            return winograd_sum(e, x, top, w, pads=pads, dtype=dtype, room=room)
        if subset_sums_fit_i32(x_range, w):
            return elementwise_sum(e, x, w, strides=strides, pads=pads, dtype=dtype)
    if target is not None and target.mac_bits == 8:
        kh, kw = w.shape[2:]
        acc = e.node(
            "ConvInteger",
            [e.cast(x, I8), e.const(w, I8, "w")],
            group=groups,
            strides=list(strides),
            pads=list(pads),
            kernel_shape=[kh, kw],
        )
        return typed(e, acc, I32, dtype)
    return conv_sum(e, x, x_range, w, groups=groups, strides=strides, pads=pads, dtype=dtype)
