"""Independent oracles: float64 convolutions, exact while every partial sum stays below
2^53 (the inputs the tests give them are small integers)."""

import numpy as np


def conv_f64(x, w, stride, pad):
    """Correlation of each window with each filter, in float64."""
    (sh, sw), (ph, pw) = stride, pad
    xp = np.pad(x.astype(np.float64), ((0, 0), (ph, ph), (pw, pw)))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(1, 2))
    win = win[:, ::sh, ::sw]
    return np.einsum("chwij,ocij->ohw", win, w.astype(np.float64))


def conv_transpose_f64(x, w, stride, pad, out_pad):
    """Zero-insertion by the stride, full padding with the flipped kernel, then the crop."""
    (sh, sw), (ph, pw), (oph, opw) = stride, pad, out_pad
    cin, h, wd = x.shape
    kh, kw = w.shape[2:]
    dil = np.zeros((cin, (h - 1) * sh + 1, (wd - 1) * sw + 1))
    dil[:, ::sh, ::sw] = x
    full = np.pad(dil, ((0, 0), (kh - 1, kh - 1 + oph), (kw - 1, kw - 1 + opw)))
    flipped = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    unc = conv_f64(full, flipped, (1, 1), (0, 0))
    uh, uw = unc.shape[1:]
    return unc[:, ph : uh - ph, pw : uw - pw]
