""":func:`jpegai_decode`: both planes of the ``wai.image.jpegai`` entropy path (§13.6.1 steps
1–4) from a bundle and its segment payloads, the scale graphs on an engine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Union
from waiexport.capabilities.jpegai import read_bundle
from waiexport.capabilities.jpegai_entropy import (
    PLANES,
    decode_planes,
    digest,
    hyper_latent,
    read_flags,
)
from waiexport.capabilities.jpegai_entropy import compare as compare_planes
from waiexport.files import npy_bytes, output_folder, read_bounded
from waiexport.jsonio import report_json
from waiexport.reference.stage import StageRefusal
from waiexport.refusal import Refusal
from waiexport.targets import engines
from waiexport.targets.engines.base import Engine, Loaded
from waiexport.targets.errors import DoesNotFit, EngineFailure, NotForEngine
from waiexport.whg1 import write

from .source import Progress
from .validation import validate, vectors

__all__ = ["Decoded", "InputRefused", "AtScale", "jpegai_decode", "PAYLOAD_LIMIT", "FLAGS_LIMIT"]

#: The most a segment's payload file may hold (a full-HD stream's are a few MB).
PAYLOAD_LIMIT = 1 << 28
#: The most a GRFS flags file may hold (160 flags, as characters or a JSON array, with room).
FLAGS_LIMIT = 1 << 20
#: A segment's payload or flags: a path to read (bounded), or the bytes.
Payload = Union[str, Path, bytes]


class InputRefused(Exception):
    """One input refused: ``which`` names it (``bundle``, ``SOZ``, ``SORP``, ``SORS``,
    ``grfs_y``, ``grfs_uv``), ``refusal`` says why and ``where`` where in it."""

    def __init__(self, which: str, refusal: Refusal, where: str):
        super().__init__(f"{which}: {refusal.code}: {where}: {refusal.detail}")
        self.which, self.refusal, self.where = which, refusal, where


class AtScale(Exception):
    """A scale graph on ``engine`` (its name) ended in ``error``: refused or declined at load,
    or the engine failed; ``role`` names the graph (or ``scale graph`` mid-decode)."""

    def __init__(self, engine: str, role: str, error: Exception):
        super().__init__(f"{engine}: {role}: {error}")
        self.engine, self.role, self.error = engine, role, error


@dataclass(frozen=True)
class Decoded:
    """The decode's summary (``jpegai decode --json``: compare, engine, planes, validated),
    the files it makes (each plane's arrays as ``.npy``, ``summary.json``), and whether the
    engine's planes differ from the reference's (with ``compare``)."""

    summary: dict
    files: dict
    differs: bool = False

    @property
    def ok(self) -> bool:
        return not self.differs

    def to_json(self) -> str:
        return report_json(self.summary)


def _bytes(source: Payload, limit: int) -> bytes:
    return source if isinstance(source, bytes) else read_bounded(Path(source), limit)


def jpegai_decode(
    bundle: str | Path,
    soz: Payload,
    sorp: Payload,
    sors: Payload,
    grfs_y: Payload,
    grfs_uv: Payload,
    *,
    engine: str | Engine = "reference",
    compare: bool = False,
    validate: bool = True,
    output: str | Path | None = None,
    progress: Progress | None = None,
) -> Decoded:
    """Decode both planes: the payloads (paths or bytes) to ``z``, ``v``, the mask,
    ``likely``, ``sigma_idx`` and ``y_q``, the scale graphs on ``engine`` (a name or an
    engine), with ``compare`` on the reference too; with ``validate``, whether the engine
    passes validate on the committed corpus for its profile (§12). With ``output``, the
    files are written as that folder, marked as ``jpegai decode``'s output.

    Parameters
    ----------
    bundle : str or Path
        The ``wai.image.jpegai`` bundle folder.
    soz, sorp, sors, grfs_y, grfs_uv : str, Path or bytes
        The payloads and the GRFS flags, as paths or bytes.
    engine : str or Engine
        What runs the scale graphs.
    compare, validate : bool
        Run the reference too and compare; validate the engine on the corpus first.
    output : str or Path, optional
        A folder to write the planes and the summary to.
    progress : callable, optional
        ``progress(label, total)`` → a function told how many steps finished.

    Returns
    -------
    Decoded
        The summary, the files and whether the engine differed from the reference.

    Raises
    ------
    InputRefused
        The bundle, a flags file or a payload refused (``model_mismatch``,
        ``stream_exhausted``, …), where the engine's planes do not differ from the
        reference's.
    AtScale
        A scale graph the engine refuses, declines or fails.
    KeyError, EngineUnavailable
        An unknown engine, or one not installed.
    OSError
        A file that cannot be read, or ``output`` written.
    """
    try:
        norm, graphs = read_bundle(Path(bundle))
    except Refusal as r:
        raise InputRefused("bundle", r, r.where) from None
    payloads = {
        "SOZ": _bytes(soz, PAYLOAD_LIMIT),
        "SORP": _bytes(sorp, PAYLOAD_LIMIT),
        "SORS": _bytes(sors, PAYLOAD_LIMIT),
    }
    flags = {}
    for plane, source in (("y", grfs_y), ("uv", grfs_uv)):
        try:
            flags[plane] = read_flags(
                _bytes(source, FLAGS_LIMIT), PLANES[plane].channels, f"GRFS flags of plane {plane}"
            )
        except Refusal as r:
            raise InputRefused(f"grfs_{plane}", r, r.where) from None
    eng = engines.engine(engine, isolate=True) if isinstance(engine, str) else engine
    sides = {"engine": eng} | ({"reference": engines.engine("reference")} if compare else {})
    hyper = {}
    for plane in PLANES:  # what can be refused is refused before any graph runs
        try:
            hyper[plane] = hyper_latent(payloads["SOZ"], norm, plane)
        except StageRefusal as r:
            raise InputRefused("SOZ", r, f"hyper-latent, position {r.at}") from None
    loaded = {
        (side, spec.role): _load_scale(e, write(graphs[spec.role]), spec.role)
        for side, e in sides.items()
        for spec in PLANES.values()
    }
    latents = {k: payloads[k] for k in ("SORP", "SORS")}
    label = "decoding both planes" + (" on the engine and the reference" if compare else "")
    bar = progress(label, 2 * len(sides)) if progress else None
    planes: dict = {}
    for side in sides:
        try:
            planes[side] = decode_planes(
                norm,
                graphs,
                lambda role, _, side=side: loaded[side, role],
                payloads["SOZ"],
                latents,
                flags,
                progress=bar,
                hyper=hyper,
            )
        except EngineFailure as e:  # a crash, a time limit, an error of its own
            raise AtScale(sides[side].name, "scale graph", e) from None
    mine = planes["engine"]
    report = {p: compare_planes(mine[p], planes["reference"][p]) for p in mine} if compare else None
    differs = bool(report and any(not d["agree"] for c in report.values() for d in c.values()))
    refused = {p: pl.refused for p, pl in mine.items() if pl.refused}
    if refused and not differs:  # a refused decode gives nothing but its refusal
        plane, first = next(iter(refused.items()))
        raise InputRefused(
            PLANES[plane].segment, first, f"latent of plane {plane}, position {first.at}"
        )
    files: dict[str, bytes] = {}
    described: dict[str, dict] = {}
    for plane, pl in mine.items():
        described[plane] = {}
        for name, a in pl.values.items():
            files[f"{plane}_{name}.npy"] = npy_bytes(a)
            described[plane][name] = {"shape": list(a.shape), "sha256": digest(a)}
        if pl.refused:
            described[plane]["refused"] = {"code": pl.refused.code, "at": pl.refused.at}
    summary = {"engine": eng.name, "planes": described, "compare": report, "validated": None}
    if validate:
        summary["validated"] = _validated(eng, progress)
    files["summary.json"] = (report_json(summary) + "\n").encode()
    if output is not None:
        with output_folder(Path(output), "jpegai decode") as work:
            for name, data in files.items():
                (work / name).write_bytes(data)
    return Decoded(summary, files, differs)


def _load_scale(eng: Engine, data: bytes, role: str) -> Loaded:
    """The engine's load of a scale graph; what it raises, as :class:`AtScale`."""
    try:
        return eng.load(data)
    except (Refusal, DoesNotFit, NotForEngine, EngineFailure) as e:
        raise AtScale(eng.name, role, e) from None


def _validated(eng: Engine, progress: Progress | None) -> dict:
    """Whether ``eng`` passes validate on the committed corpus for its profile."""
    read = vectors()
    bar = (
        progress(f"validating {eng.name} on the committed corpus", sum(len(v) for _, v in read))
        if progress
        else None
    )
    rep = validate(read, engine=eng, progress=bar).report
    t = rep["totals"]
    return {
        "profile": eng.profile,
        "passed": t["pass"],
        "failed": t["fail"],
        "ran_elsewhere": t["elsewhere"],
        "crashed": t["crashed"],
        "timed_out": t["timed_out"],
        "declined": t["declined"],
        "not_for_engine": t["skip"],
        "conforming": rep["claim"] is not None,
    }
