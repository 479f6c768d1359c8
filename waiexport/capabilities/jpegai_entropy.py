"""The ``wai.image.jpegai`` entropy path end to end (§13.6.1 steps 1–4), for both planes: the
SOZ payload to the hyper-latent ``z`` (E8 ``fac``), the scale graph on an engine to ``v``, the
stage operators on the host (``coded``, ``block_stat``, ``band_lookup``, ``scale_index``) to
the mask, ``likely`` and ``σ_idx``, and the plane's latent payload to ``y_q`` (E8 ``sgm``).

The codestream syntax of ISO/IEC 6048-1 is not in our text: the caller extracts the segment
payloads (the bytes after each marker and its length field) and the GRFS flags.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..jsonio import loads
from ..reference.stage import StageRefusal
from ..reference.stage.band_lookup import band_lookup
from ..reference.stage.block_stat import block_stat
from ..reference.stage.coded import coded
from ..reference.stage.mans_decode import decode_fac, sgm_symbols
from ..reference.stage.scale_index import scale_index
from ..refusal import Refusal
from ..whg1 import write

__all__ = [
    "PLANES",
    "PlaneSpec",
    "Plane",
    "read_flags",
    "hyper_latent",
    "stage_values",
    "latent",
    "decode_plane",
    "decode_planes",
    "compare",
    "digest",
]


#: plane → (scale-graph role, channels C, the plane's rows, rows skipped first, latent segment)
class PlaneSpec(NamedTuple):
    """What §13.6.1 fixes of one plane: its scale graph's role, its latent channels ``C``,
    its rows of the entropy tables, the hyper-latent rows decoded before its own, and the
    segment that carries its latent."""

    role: str
    channels: int
    rows: str
    skip: int
    segment: str


PLANES = {
    "y": PlaneSpec("hs_y", 160, "cdfs_y", 0, "SORP"),
    "uv": PlaneSpec("hs_uv", 96, "cdfs_uv", 160, "SORS"),
}
EDGES, TABLE = [1003, 1352, 1937], [[-31, 20, 122, 181], [-80, -31, 71, 130]]
#: The arrays one plane's decode fixes (§13.6.1, *What this subsection fixes*), in order.
VALUES = ("z", "v", "mask", "likely", "sigma_idx", "y_q")


@dataclass
class Plane:
    """One plane's decode: its arrays by name (those computed before a refusal), and the
    latent decode's refusal, if any."""

    name: str
    values: dict = field(default_factory=dict)
    refused: StageRefusal | None = None


def read_flags(data: bytes, count: int, where: str) -> list[bool]:
    """A GRFS flags file's bytes: ``0``/``1`` characters (whitespace ignored) or a JSON array
    of 0/1 or booleans, with exactly ``count`` entries (``model_mismatch`` otherwise)."""
    text = data.decode("ascii", errors="replace").strip()
    if text.startswith("["):
        try:
            items = loads(text)
        except ValueError:
            raise Refusal("model_mismatch", where, "not a JSON array") from None
        if not isinstance(items, list) or any(
            type(v) not in (int, bool) or v not in (0, 1) for v in items
        ):  # 1.0 is no flag
            raise Refusal("model_mismatch", where, "a flag is not 0, 1, true or false")
        flags = [bool(v) for v in items]
    else:
        chars = "".join(text.split())
        if set(chars) - {"0", "1"}:
            raise Refusal("model_mismatch", where, "a flag is not the character 0 or 1")
        flags = [c == "1" for c in chars]
    if len(flags) != count:
        raise Refusal(
            "model_mismatch",
            where,
            f"{len(flags)} GRFS flags, expected {count} (one per latent channel)",
        )
    return flags


def hyper_latent(soz: bytes, norm: dict, plane: str) -> np.ndarray:
    """Step 1: ``z [C, 4, 4]`` from a fresh ``fac`` decode of the SOZ payload, after the
    ``skip`` rows (luma's, decoded with luma's rows and discarded)."""
    spec = PLANES[plane]
    c, rows, skip = spec.channels, spec.rows, spec.skip
    table = np.asarray(norm["cdfs_y"][:skip] + norm[rows], np.int64)
    symbols = decode_fac(soz, table, [16] * (skip + c))
    return np.array(symbols[skip:], dtype=np.int64).reshape(c, 4, 4) - 31


def stage_values(v: np.ndarray, flags: list[bool]) -> dict:
    """Step 3 at every channel and position: the mask, ``likely``, ``σ_idx``."""
    likely = block_stat(v, 8, 6, 0, 4351)
    rows = np.broadcast_to(np.where(flags, 0, 1).reshape(-1, 1, 1), v.shape)
    rvs = band_lookup(likely, EDGES, TABLE, rows)
    return {
        "mask": coded(v, 382),
        "likely": likely,
        "sigma_idx": scale_index(np.asarray(v, np.int64) + rvs, 7, 32),
    }


def latent(stream: bytes, norm: dict, sigma_idx: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Step 4: ``y_q [C, H, W]`` from a fresh ``sgm`` decode, span ``c`` channel ``c``'s
    positions in raster order with their ``σ_idx`` and mask."""
    c = sigma_idx.shape[0]
    return sgm_symbols(
        stream,
        norm["pmf"][:32],
        norm["bounds"][:32],
        np.asarray(mask, bool).reshape(-1),
        np.asarray(sigma_idx, np.int64).reshape(-1),
        [sigma_idx.size // c] * c if c else [],
    ).reshape(sigma_idx.shape)


def decode_plane(
    plane: str,
    norm: dict,
    scale,
    soz: bytes,
    stream: bytes,
    flags: list[bool],
    z: np.ndarray | None = None,
) -> Plane:
    """Steps 1–4 for one plane (step 1 done where its ``z`` is given); ``scale(z)`` runs the
    plane's scale graph and returns ``v``. A hyper-latent refusal is raised (nothing
    downstream exists); a latent one is kept."""
    out = Plane(plane)
    out.values["z"] = hyper_latent(soz, norm, plane) if z is None else z
    out.values["v"] = np.asarray(scale(out.values["z"]), dtype=np.int64)
    out.values.update(stage_values(out.values["v"], flags))
    try:
        out.values["y_q"] = latent(stream, norm, out.values["sigma_idx"], out.values["mask"])
    except StageRefusal as r:
        out.refused = r
    return out


def decode_planes(
    norm: dict,
    graphs: dict,
    load,
    soz: bytes,
    latents: dict,
    flags: dict,
    progress=None,
    hyper: dict | None = None,
) -> dict:
    """Both planes (:func:`decode_plane`), each scale graph run by ``load(role, whg1)``'s
    :class:`~waiexport.targets.engines.Loaded`; ``latents`` by segment (SORP, SORS), ``flags``
    by plane, ``hyper`` the hyper-latents already decoded, by plane; ``progress(1)`` after
    each plane."""
    out = {}
    for plane, spec in PLANES.items():
        loaded = load(spec.role, write(graphs[spec.role]))
        out[plane] = decode_plane(
            plane,
            norm,
            lambda z: loaded.decode([z], [])[0],
            soz,
            latents[spec.segment],
            flags[plane],
            (hyper or {}).get(plane),
        )
        if progress:
            progress(1)
    return out


def digest(a: np.ndarray) -> str:
    """SHA-256 of an array's values as little-endian int64 in CHW order."""
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<i8").tobytes()).hexdigest()


def _first(a: np.ndarray, b: np.ndarray) -> dict | None:
    """Where the engine's ``a`` first differs from the reference's ``b`` (of the same
    shape), or None."""
    bad = np.argwhere(a != b)
    if not len(bad):
        return None
    c, y, x = (int(i) for i in bad[0])
    return {
        "channel": c,
        "y": y,
        "x": x,
        "engine": int(a[c, y, x]),
        "reference": int(b[c, y, x]),
        "count": int(len(bad)),
    }


def compare(mine: Plane, ref: Plane) -> dict:
    """Per array, whether the engine's plane agrees with the reference's, and where it first
    differs (or the two shapes, where they differ); a latent decode refused on one side only
    says which and with what code."""
    out = {}
    for name in VALUES:
        a, b = mine.values.get(name), ref.values.get(name)
        if a is None or b is None:
            continue
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:  # no comparison broadcasts one side over the other
            out[name] = {"agree": False, "shapes": [list(a.shape), list(b.shape)]}
            continue
        first = _first(a, b)
        out[name] = {"agree": first is None, **({"first": first} if first else {})}
    if (mine.refused is None) != (ref.refused is None):
        side, r = ("engine", mine.refused) if mine.refused else ("reference", ref.refused)
        out["y_q"] = {"agree": False, "refused_on": side, "code": r.code, "at": r.at}
    elif mine.refused and (mine.refused.code, mine.refused.at) != (
        ref.refused.code,
        ref.refused.at,
    ):
        out["y_q"] = {
            "agree": False,
            "refused_on": "both",
            "code": [mine.refused.code, ref.refused.code],
            "at": [mine.refused.at, ref.refused.at],
        }
    return out
