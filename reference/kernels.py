"""Compiled integer kernels for the sums of ``conv`` and ``conv_transpose`` (numba).

numpy has no fast path for integer matrix products (no integer BLAS), and floating point is
not allowed on a graph's values (§6). These loops run in ``int32`` or ``int64``, whichever the
caller has proved holds every partial sum, and never wrap: the caller's bound covers every
partial sum in every order (§8.2).
"""

import hashlib
import io
import os
import pickle
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from waiexport.caches import seal, unsealed, user_cache

#: numba's cache, where any install can write (beside a non-editable install it may not):
#: ``$XDG_CACHE_HOME/waiexport/numba``, ``~/.cache`` by default, unless NUMBA_CACHE_DIR says.
CACHE = Path(os.environ.get("NUMBA_CACHE_DIR") or user_cache("numba"))
os.environ.setdefault("NUMBA_CACHE_DIR", str(CACHE))


@contextmanager
def _kept_out(*modules: str):
    """Inside, each of ``modules`` that nothing has imported yet is absent to an import (it
    raises ImportError); afterwards each imports as before."""
    absent = [m for m in modules if m not in sys.modules]
    sys.modules.update(dict.fromkeys(absent))
    try:
        yield
    finally:
        for m in absent:
            del sys.modules[m]


# numba's import reads scipy only to check its version where scipy is installed (18 ms here),
# and PyYAML only for a ``.numba_config.yaml`` in the working folder (17 ms), where there is
# none: nothing here needs either.
with _kept_out("scipy", *(() if os.path.isfile(".numba_config.yaml") else ("yaml",))):
    from numba import __version__ as _numba  # noqa: E402
    from numba import njit, prange
    from numba.core.caching import IndexDataCacheFile  # noqa: E402

__all__ = ["conv_acc", "conv_transpose_acc", "announced", "CACHE"]


def _numpy_support_without_scipy() -> None:
    """Import numba's numpy support (``numba.np.arraymath``, which numba's registries import)
    with ``scipy.linalg`` kept out where nothing has imported it yet: numba imports it there
    only to learn whether ``np.convolve`` and ``np.correlate`` may call BLAS, which no kernel
    here does, and it cost 0.25–0.6 s of every command that compiled a kernel wherever scipy
    is installed (measured). Without it numba computes those two with its own loop; its
    linear algebra imports scipy when compiled, as before."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    with _kept_out("scipy.linalg"):
        import numba.np.arraymath  # noqa: F401


def _cached_without_registries(kernel) -> None:
    """Make ``kernel`` load its compiled code from numba's cache without numba's registries.

    numba fills its registries of everything it can compile (every module of its numpy and
    Python support, 0.15–0.3 s) and loads the extensions of every installed package (a scan
    of every package's entry points, 12 ms here) before it looks in its cache, though a
    cached kernel needs only its machine code, numba's runtime where it allocates, and, for
    a parallel one, its threads (which the cached code starts itself). Here the cache is
    read first, with the runtime started where the kernel uses it; only a miss, which
    compiles, fills the registries, and they load the extensions (numpy's support imported
    without scipy, :func:`_numpy_support_without_scipy`). Where this numba's cache lacks the
    calls relied on, its own load runs, as before."""
    cache = getattr(kernel, "_cache", None)
    if not all(
        hasattr(cache, name)
        for name in ("_load_overload", "load_overload", "_guard_against_spurious_io_errors")
    ) or not hasattr(kernel, "_compilation_chain_init_hook"):
        return
    plain = cache.load_overload
    runtime = kernel.targetoptions.get("_nrt", True)
    kernel._compilation_chain_init_hook = lambda: None

    def load_overload(sig, target_context):
        from numba.core.runtime import rtsys  # numba's internals, when a cache loads

        if runtime:
            rtsys.initialize(target_context)
        with cache._guard_against_spurious_io_errors():
            loaded = cache._load_overload(sig, target_context)
        if loaded is None:
            _numpy_support_without_scipy()
            loaded = plain(sig, target_context)
        return loaded

    cache.load_overload = load_overload


def _sealed_files(kernel) -> None:
    """Make numba's cache files of ``kernel`` sealed (:func:`waiexport.caches.seal`): each
    written with the digest of its bytes, and one whose bytes are not what was written (cut
    short, emptied, a bit of its machine code changed) removed and compiled again, never
    loaded. Where this numba's cache lacks the file class relied on, nothing changes."""
    files = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if type(files) is IndexDataCacheFile and all(
        hasattr(files, n)
        for n in (
            "_index_path",
            "_version",
            "_source_stamp",
            "_data_path",
            "_dump",
            "_open_for_write",
        )
    ):
        files.__class__ = _Sealed


class _Sealed(IndexDataCacheFile):
    """numba's index and data files (``IndexDataCacheFile``), each sealed."""

    def _load_index(self):
        body = unsealed(self._index_path)
        if body is None:
            return {}
        f = io.BytesIO(body)
        if pickle.load(f) != self._version:
            return {}
        stamp, overloads = pickle.loads(f.read())
        return overloads if stamp == self._source_stamp else {}

    def _save_index(self, overloads):
        body = pickle.dumps(self._version, protocol=-1) + self._dump(
            (self._source_stamp, overloads)
        )
        with self._open_for_write(self._index_path) as f:
            f.write(seal(body))

    def _load_data(self, name):
        body = unsealed(self._data_path(name))
        if body is None:  # numba's load takes this as a miss, and compiles
            raise FileNotFoundError(self._data_path(name))
        return pickle.loads(body)

    def _save_data(self, name, data):
        with self._open_for_write(self._data_path(name)) as f:
            f.write(seal(self._dump(data)))


def announced(kernel, source: str):
    """``kernel``, saying on stderr, once, when it is about to be compiled on this install
    (the first decode of a fresh install otherwise sits silent for a quarter of a minute);
    ``source`` is the file that defines it, whose digest marks it compiled. It loads from
    numba's cache without numba's registries (:func:`_cached_without_registries`)."""
    digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]
    mark = CACHE / f"compiled-{_numba}-{digest}"
    _sealed_files(kernel)
    _cached_without_registries(kernel)

    def run(*args):
        if not mark.exists():
            print(
                "waiexport: compiling the reference's integer kernels, once per install "
                "(a few seconds)...",
                file=sys.stderr,
                flush=True,
            )
        out = kernel(*args)
        if not mark.exists():
            CACHE.mkdir(parents=True, exist_ok=True)
            mark.touch()
        return out

    run.kernel = kernel
    return run


@njit(cache=True, parallel=True)
def _conv_acc(xp, w, sh, sw, groups, acc):  # pragma: no cover - compiled
    """``acc[o][y][x] = Σ w[o][ci][i][j] · xp[g·cg + ci][y·sh + i][x·sw + j]`` over a padded
    input ``xp``; one output row at a time, so the row stays in cache."""
    cout, cg, kh, kw = w.shape
    _, ho, wo = acc.shape
    og = cout // groups
    for o in prange(cout):
        g = o // og
        row = np.zeros(wo, acc.dtype)
        for y in range(ho):
            row[:] = 0
            for ci in range(cg):
                c = g * cg + ci
                for i in range(kh):
                    src = xp[c, y * sh + i]
                    for j in range(kw):
                        wv = w[o, ci, i, j]
                        if sw == 1:
                            for x in range(wo):
                                row[x] += wv * src[x + j]
                        else:
                            for x in range(wo):
                                row[x] += wv * src[x * sw + j]
            acc[o, y] = row


@njit(cache=True, parallel=True)
def _conv_transpose_acc(x, w, sh, sw, plane):  # pragma: no cover - compiled
    """The scatter form of §5.3: ``plane[o][u·sh + i][v·sw + j] += w[ci][o][i][j] · x[ci][u][v]``
    over the uncropped plane. Each output row is gathered from the input rows that reach it,
    its columns kept by phase (``j mod sw``) so every inner loop is contiguous, four input
    channels a pass (a row read and written once for four products: 1.5–1.9× the speed of one
    a pass, measured); any sum of their products is bounded as the whole sum is."""
    cin, h, wd = x.shape
    _, cout, kh, kw = w.shape
    _, uh, uw = plane.shape
    npc = (uw + sw - 1) // sw
    c4 = cin - cin % 4
    for o in prange(cout):
        prow = np.zeros((sw, npc), plane.dtype)
        for y in range(uh):
            prow[:] = 0
            for i in range(kh):
                t = y - i
                if t < 0 or t % sh != 0 or t // sh >= h:
                    continue
                r = t // sh
                for c in range(0, c4, 4):
                    s0, s1, s2, s3 = x[c, r], x[c + 1, r], x[c + 2, r], x[c + 3, r]
                    for j in range(kw):
                        w0, w1, w2, w3 = (
                            w[c, o, i, j],
                            w[c + 1, o, i, j],
                            w[c + 2, o, i, j],
                            w[c + 3, o, i, j],
                        )
                        dst = prow[j % sw]
                        d = j // sw
                        for v in range(wd):
                            dst[v + d] += w0 * s0[v] + w1 * s1[v] + w2 * s2[v] + w3 * s3[v]
                for ci in range(c4, cin):
                    src = x[ci, r]
                    for j in range(kw):
                        wv = w[ci, o, i, j]
                        dst = prow[j % sw]
                        d = j // sw
                        for v in range(wd):
                            dst[v + d] += wv * src[v]
            for rx in range(sw):
                for k in range(npc):
                    if rx + k * sw < uw:
                        plane[o, y, rx + k * sw] = prow[rx, k]


conv_acc = announced(_conv_acc, __file__)
conv_transpose_acc = announced(_conv_transpose_acc, __file__)
