"""The ``wai.image.jpegai`` entropy path at full HD (§13.6.1), interleaved over rounds:

- the entropy decode alone: one SOZ stream of both planes' hyper-latents and the SORP and
  SORS latent streams at 1920×1080's sizes (latents 68 × 120 per channel, 160 luma and 96
  chroma channels: 2,088,960 positions; hyper-latents 17 × 30), made by the ``mans``
  encoder from seeded symbols, decoded by the compiled walk, in positions per second;
- the whole decode end to end: §13.6.1 fixes a scale graph of 4 × 4 hyper-latents (one
  entropy substream a tile of 16 × 16 latents), so full HD is 32 such tiles (2,097,152
  positions), each both planes' hyper-latent decode, scale graph on ``ort-cpu``, stage
  operators and latent decode (the tiles cycle through four seeded streams);
- the peer: the checker's literal ``mans_decode`` on one tile's SORP stream, against the
  compiled walk on the same stream;
- ``jpegai decode --engine ort-cpu --no-validate`` of the bundled example in a fresh process
  (warm: kernels compiled, models cached), against ``python -c "import numpy, onnxruntime,
  numba"``.

Each figure is a median with its spread; the load average is printed with them.

Run: ``python benchmarks/jpegai_decode.py [ROUNDS]``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from _timing import fresh, interleaved, ratio

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "examples" / "jpegai"
HD = (68, 120)  # 1080 / 16 rounded up, 1920 / 16
HYPER = (17, 30)  # the latent's size / 4, rounded up


def full_hd_streams(norm: dict, seed: int = 5) -> dict:
    """Seeded streams at full HD: ``soz`` (both planes' hyper-latent rows), and per plane
    its mask, ``σ_idx`` and latent stream."""
    from waiexport.capabilities.jpegai_entropy import PLANES
    from waiexport.reference.stage.mans_encode import coding, encode_fac, encode_sgm

    rng = np.random.default_rng(seed)
    rows = norm["cdfs_y"] + norm["cdfs_uv"]
    n_hyper = HYPER[0] * HYPER[1]
    hyper = rng.integers(0, 64, (len(rows), n_hyper))
    out = {"soz": encode_fac(rows, hyper.tolist()), "rows": rows, "n_hyper": n_hyper}
    pmf, bounds = norm["pmf"][:32], norm["bounds"][:32]
    codes = [coding(p, b)[0] for p, b in zip(pmf, bounds)]
    for plane, spec in PLANES.items():
        n = spec.channels * HD[0] * HD[1]
        sigma = rng.integers(0, 32, n)
        mask = rng.random(n) < 0.25
        pick = rng.random(n)
        syms = [
            codes[s][int(u * len(codes[s]))] if m else 0
            for s, m, u in zip(sigma.tolist(), mask.tolist(), pick.tolist())
        ]
        span = HD[0] * HD[1]
        spans = [
            {
                "mask": mask[i : i + span].tolist(),
                "sigma": sigma[i : i + span].tolist(),
                "symbols": syms[i : i + span],
            }
            for i in range(0, n, span)
        ]
        out[plane] = (mask, sigma, encode_sgm(pmf, bounds, spans), np.array(syms))
    return out


def entropy_decode(norm: dict, s: dict) -> int:
    """Both planes' entropy decodes at full HD; the positions decoded."""
    from waiexport.capabilities.jpegai_entropy import PLANES
    from waiexport.reference.stage.mans_decode import decode_fac, sgm_symbols

    decode_fac(s["soz"], s["rows"], [s["n_hyper"]] * len(s["rows"]))
    n = 0
    for plane, spec in PLANES.items():
        mask, sigma, stream, _ = s[plane]
        sgm_symbols(
            stream,
            norm["pmf"][:32],
            norm["bounds"][:32],
            mask,
            sigma,
            [HD[0] * HD[1]] * spec.channels,
        )
        n += len(mask)
    return n


def tiles(count: int = 32, kinds: int = 4):
    """``count`` tiles' payloads (SOZ, latents by segment, flags by plane), cycling through
    ``kinds`` seeded tiles of the bundled bundle."""
    from waiexport.capabilities.examples import jpegai_streams

    made = []
    for seed in range(kinds):
        folder = Path(tempfile.mkdtemp()) / "jpegai"
        shutil.copytree(BUNDLE, folder, ignore=shutil.ignore_patterns("streams"))
        jpegai_streams(folder, seed=100 + seed)
        st = folder / "streams"
        flags = {
            p: [c == "1" for c in (st / f"grfs_{p}.txt").read_text().strip()] for p in ("y", "uv")
        }
        made.append(
            (
                (st / "soz.bin").read_bytes(),
                {"SORP": (st / "sorp.bin").read_bytes(), "SORS": (st / "sors.bin").read_bytes()},
                flags,
            )
        )
    return [made[i % kinds] for i in range(count)]


def whole_decode(norm, graphs, load, payloads) -> int:
    """Every tile end to end on the loaded scale graphs; the latent positions decoded."""
    from waiexport.capabilities.jpegai_entropy import decode_planes

    n = 0
    for soz, latents, flags in payloads:
        planes = decode_planes(norm, graphs, load, soz, latents, flags)
        assert all(p.refused is None for p in planes.values())
        n += sum(p.values["y_q"].size for p in planes.values())
    return n


def main(rounds: int = 7) -> None:
    from waiexport.capabilities.jpegai import lower_jpegai, read_norm
    from waiexport.capabilities.jpegai_entropy import decode_planes
    from waiexport.reference.literal.stage import LITERAL_STAGE
    from waiexport.reference.stage.mans_decode import sgm_symbols
    from waiexport.targets.engines import engine
    from waiexport.whg1 import write

    norm, graphs = read_norm(BUNDLE), lower_jpegai(BUNDLE)
    print("making the full-HD streams and the tiles...", file=sys.stderr, flush=True)
    hd = full_hd_streams(norm)
    for plane in ("y", "uv"):
        mask, sigma, stream, syms = hd[plane]
        got = sgm_symbols(
            stream,
            norm["pmf"][:32],
            norm["bounds"][:32],
            mask,
            sigma,
            [HD[0] * HD[1]] * (len(mask) // (HD[0] * HD[1])),
        )
        assert (got == syms).all(), f"plane {plane}: the decode is not the encoded symbols"
    ort = engine("ort-cpu")
    loaded = {role: ort.load(write(g)) for role, g in graphs.items()}
    load = lambda role, _: loaded[role]  # noqa: E731
    payloads = tiles()
    soz, latents, flags = payloads[0]
    luma = decode_planes(norm, graphs, load, soz, latents, flags)["y"].values
    inp = {
        "memory": latents["SORP"].hex(),
        "mode": "sgm",
        "pmf": norm["pmf"][:32],
        "bounds": norm["bounds"][:32],
        "spans": [
            {"mask": m.reshape(-1).tolist(), "sigma": s.reshape(-1).tolist()}
            for m, s in zip(luma["mask"], luma["sigma_idx"])
        ],
    }
    sizes = [luma["mask"][0].size] * len(luma["mask"])
    fns = {
        "entropy": lambda: entropy_decode(norm, hd),
        "whole": lambda: whole_decode(norm, graphs, load, payloads),
        "tile compiled": lambda: sgm_symbols(
            latents["SORP"],
            inp["pmf"],
            inp["bounds"],
            luma["mask"].reshape(-1),
            luma["sigma_idx"].reshape(-1),
            sizes,
        ),
        "tile literal": lambda: LITERAL_STAGE["mans_decode"](inp, {}),
    }
    for fn in fns.values():  # compiled kernels, caches
        fn()
    load_before = os.getloadavg()[0]
    times = interleaved(fns, rounds)
    n_hd = sum(len(hd[p][0]) for p in ("y", "uv"))
    n_whole = whole_decode(norm, graphs, load, payloads[:1]) * len(payloads)
    print(
        f"jpegai entropy path, full HD, {rounds} rounds interleaved, load "
        f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after:"
    )
    for name, n in (("entropy decode", n_hd), ("whole decode", n_whole)):
        t = times["entropy" if name == "entropy decode" else "whole"]
        rates = sorted(n / x / 1e6 for x in t)
        print(
            f"  {name}: {n:,} positions in {statistics.median(t):.2f} s, "
            f"{statistics.median(rates):.2f} million positions/s "
            f"(spread {rates[0]:.2f}-{rates[-1]:.2f})"
        )
    print(
        f"  one tile's SORP ({luma['mask'].size:,} positions): the compiled walk "
        f"{statistics.median(times['tile compiled']) * 1e3:.1f} ms, the literal twin "
        f"{ratio(times, 'tile literal', 'tile compiled')} that"
    )
    startup()


def startup(rounds: int = 7) -> None:
    """``jpegai decode --engine ort-cpu --no-validate`` of the bundled example, warm, in
    fresh processes, against the import of numpy, onnxruntime and numba."""
    st = BUNDLE / "streams"
    out = Path(tempfile.mkdtemp()) / "decoded"
    exe = shutil.which("waiexport") or "waiexport"
    cmds = {
        "imports": [sys.executable, "-c", "import numpy, onnxruntime, numba"],
        "decode": [
            exe,
            "jpegai",
            "decode",
            str(BUNDLE),
            "--soz",
            str(st / "soz.bin"),
            "--sorp",
            str(st / "sorp.bin"),
            "--sors",
            str(st / "sors.bin"),
            "--grfs-y",
            str(st / "grfs_y.txt"),
            "--grfs-uv",
            str(st / "grfs_uv.txt"),
            "--engine",
            "ort-cpu",
            "--no-validate",
            "-o",
            str(out),
        ],
    }
    fresh(cmds["decode"])()  # models cached, kernels compiled
    times = interleaved({k: fresh(c) for k, c in cmds.items()}, rounds)
    print(
        f"  jpegai decode of the bundled example, warm, fresh processes: "
        f"{statistics.median(times['decode']):.2f} s, {ratio(times, 'decode', 'imports')} "
        f"the import of numpy, onnxruntime and numba "
        f"({statistics.median(times['imports']):.2f} s)"
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
