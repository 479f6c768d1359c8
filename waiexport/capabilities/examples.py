"""Example sets in their source formats, made deterministically from a seed: ``int_synth``
models (§13.1) and ``wai.image.jpegai`` bundles (§13.6.1), small ones committed under
``examples/``, realistic ones made on demand, and the two boundary sets of §14.3.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..builder import GraphBuilder, conv_transpose, rq
from ..graph import Graph
from ..params import Clamp
from ..reference import decode
from ..reference.stage.mans_encode import coding, encode_fac, encode_sgm
from ..whg1 import write
from .jpegai import read_bundle
from .jpegai_entropy import PLANES, digest, stage_values

__all__ = [
    "tiny_synth",
    "int_synth_source",
    "jpegai_bundle",
    "jpegai_streams",
    "boundary_sets",
    "make",
    "EXAMPLES",
]


def tiny_synth(seed: int = 1) -> Graph:
    """An ``int_synth``-shaped decoder built directly as a graph: two stride-2
    ``conv_transpose`` layers (k4 p1 and k5 p2 op1), ``relu`` between, ``clamp(0, 255)`` last;
    latents ``[8, ≤16, ≤16]``."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    x = b.input(8, -128, 127, max_h=16, max_w=16)
    w1 = rng.integers(-64, 64, size=(8, 6, 4, 4))
    h = b.op(
        "conv_transpose",
        x,
        conv_transpose(
            w1,
            stride=2,
            pad=1,
            w_bytes=4,
            rq=rq(shift=6, bias=rng.integers(-512, 512, size=6), b_bytes=4),
        ),
    )
    h = b.op("relu", h)
    w2 = rng.integers(-64, 64, size=(6, 3, 5, 5))
    y = b.op(
        "conv_transpose",
        h,
        conv_transpose(
            w2,
            stride=2,
            pad=2,
            out_pad=1,
            w_bytes=4,
            rq=rq(shift=7, bias=rng.integers(-512, 512, size=3), b_bytes=4),
        ),
    )
    b.output(b.op("clamp", y, Clamp(0, 255)))
    return b.build()


def _sums(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """An ``int_synth`` layer's sums (k5 s2 p2 op1, no bias, no shift) on ``x``, exact."""
    b = GraphBuilder()
    lo, hi = int(x.min()), int(x.max())
    b.output(
        b.op(
            "conv_transpose",
            b.input(x.shape[0], min(lo, -1), max(hi, 1)),
            conv_transpose(w, stride=2, pad=2, out_pad=1, w_bytes=4),
        )
    )
    return decode(b.build(), [x], [])[0].astype(np.int64)


def _calibrated(x: np.ndarray, w: np.ndarray, last: bool, rng) -> tuple[int, list, np.ndarray]:
    """A layer's shift and bias chosen from its sums on the sample ``x``, and its output: a
    hidden layer (relu) keeps its typical activations within int8's magnitude; the last
    centres its output at 128 with three standard deviations reaching the ends of 0..255."""
    acc = _sums(x, w)
    cout = w.shape[1]
    if last:
        shift = max(0, int(np.ceil(np.log2(max(3 * acc.std(), 1) / 127))))
        bias = [128 << shift] * cout
        y = np.clip((acc + (128 << shift)) >> shift, 0, 255)
    else:
        shift = max(0, int(np.ceil(np.log2(max(float(np.percentile(np.abs(acc), 99.9)), 1) / 127))))
        bias = rng.integers(-(1 << shift) // 4, (1 << shift) // 4 + 1, cout).tolist()
        y = np.maximum((acc + np.array(bias).reshape(-1, 1, 1)) >> shift, 0)
    return shift, bias, y


def int_synth_source(channels=(192, 128, 64, 3), seed: int = 7) -> bytes:
    """An ``int_synth.json`` of stride-2 layers through ``channels`` (§13.1), each layer's
    shift and bias chosen from its activations on a seeded sample of latents, so the output
    on typical latents spans most of 0..255 and the set still meets ``acc32``."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (channels[0], 6, 6))
    layers = []
    for i, (a, b) in enumerate(zip(channels, channels[1:])):
        w = rng.integers(-40, 41, size=(a, b, 5, 5))
        last = i == len(channels) - 2
        shift, bias, x = _calibrated(x, w, last, rng)
        layers.append(
            {
                "in_ch": a,
                "out_ch": b,
                "k": 5,
                "stride": 2,
                "pad": 2,
                "out_pad": 1,
                "weight": w.tolist(),
                "bias": bias,
                "shift": shift,
                "relu": not last,
            }
        )
    return json.dumps({"layers": layers}, separators=(",", ":")).encode()


def _tensor(a: np.ndarray) -> dict:
    return {"dims": list(a.shape), "v": a.reshape(-1).tolist()}


def jpegai_bundle(root: Path, c1: int = 8, c2: int = 8, seed: int = 11) -> None:
    """A ``wai.image.jpegai`` bundle: ``norm.json`` and ``weights/hs_y.json``,
    ``weights/hs_uv.json`` with ``Cz = 160`` and ``96``, ``C3 = 16·Cz`` (§13.6.1)."""
    rng = np.random.default_rng(seed)
    pmf = []
    for _ in range(32):
        cuts = np.sort(rng.integers(0, 257, 7))
        pmf.append(np.diff(np.r_[0, cuts, 256]).tolist())
    norm = {
        "pmf": pmf,
        "bounds": rng.integers(0, 256, 32).tolist(),
        "per_channel": 16,
        "cdfs_y": np.sort(rng.integers(0, 256, (160, 63)), axis=1).reshape(-1).tolist(),
        "cdfs_uv": np.sort(rng.integers(0, 256, (96, 63)), axis=1).reshape(-1).tolist(),
        "gain_y": rng.integers(-400, 400, 160).tolist(),
        "gain_uv": rng.integers(-400, 400, 96).tolist(),
        "note": "members this lowering does not read are ignored",
    }
    (root / "weights").mkdir(parents=True, exist_ok=True)
    (root / "norm.json").write_text(json.dumps(norm, separators=(",", ":")))
    for name, cz in (("hs_y.json", 160), ("hs_uv.json", 96)):
        members = {}
        for block, pow_name, cin, cout, k, shift in (
            ("conv1", "onnx::Pow_85", cz, c1, 1, 6),
            ("depthwise", "onnx::Pow_91", c1, c2, 3, 7),
            ("pointwise", "onnx::Pow_97", c2, 16 * cz, 1, 5),
        ):
            members[f"{block}.weight"] = _tensor(rng.integers(-90, 91, (cout, cin, k, k)))
            members[f"{block}.bias"] = _tensor(rng.integers(-2000, 2000, cout))
            members[pow_name] = _tensor(
                np.full((1, cout, 1, 1), shift) + rng.integers(0, 2, (1, cout, 1, 1))
            )
        (root / "weights" / name).write_text(json.dumps(members, separators=(",", ":")))


def _latent_symbol(p: list[int], beta: int, rng) -> int:
    """A symbol the row ``p`` with bound ``beta`` codes: direct, or by the escape when its
    column has mass (then on either side of ``±β``)."""
    direct, escape = coding(p, beta)
    if escape:
        direct += [beta + int(rng.integers(0, 200)), -beta - int(rng.integers(0, 200))]
    return int(rng.choice(direct))


def jpegai_streams(bundle: Path, seed: int = 13) -> dict:
    """Seeded SOZ, SORP and SORS payloads for the bundle, made by the ``mans`` encoder from
    chosen symbols (hyper-latents, then latents at the positions the reference scale path
    masks, each from its ``σ_idx``'s table), with GRFS flags, under ``bundle/streams/``;
    returns ``streams.json``: per plane the digests of the chosen ``z`` and ``y_q``."""
    rng = np.random.default_rng(seed)
    norm, graphs = read_bundle(bundle)
    out = bundle / "streams"
    out.mkdir(parents=True, exist_ok=True)
    hyper = {plane: rng.integers(0, 64, (spec.channels, 16)) for plane, spec in PLANES.items()}
    rows = norm["cdfs_y"] + norm["cdfs_uv"]
    (out / "soz.bin").write_bytes(
        encode_fac(rows, [list(map(int, r)) for r in np.concatenate([hyper["y"], hyper["uv"]])])
    )
    summary = {"seed": seed, "planes": {}}
    for plane, spec in PLANES.items():
        role, c, segment = spec.role, spec.channels, spec.segment
        z = hyper[plane].reshape(c, 4, 4) - 31
        flags = rng.integers(0, 2, c).astype(bool)
        (out / f"grfs_{plane}.txt").write_text("".join("1" if f else "0" for f in flags) + "\n")
        got = stage_values(decode(graphs[role], [z], [])[0].astype(np.int64), list(flags))
        y_q = np.zeros((c, 16, 16), dtype=np.int64)
        for ch, y, x in np.argwhere(got["mask"]):
            sigma = int(got["sigma_idx"][ch, y, x])
            y_q[ch, y, x] = _latent_symbol(norm["pmf"][sigma], norm["bounds"][sigma], rng)
        spans = [
            {
                "mask": m.reshape(-1).tolist(),
                "sigma": s.reshape(-1).tolist(),
                "symbols": q.reshape(-1).tolist(),
            }
            for m, s, q in zip(got["mask"], got["sigma_idx"], y_q)
        ]
        (out / f"{segment.lower()}.bin").write_bytes(
            encode_sgm(norm["pmf"][:32], norm["bounds"][:32], spans)
        )
        summary["planes"][plane] = {"z_sha256": digest(z), "y_q_sha256": digest(y_q)}
    (out / "streams.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary


def boundary_sets() -> dict[str, bytes]:
    """The two sets §14.3 asks for, as ``int_synth.json`` files: one whose certificate fails
    ``acc64`` by one unit (a sum reaches 2^63), and one whose claim of ``acc32`` fails by one
    weight (a sum reaches 2^31)."""
    one_past_64 = {
        "layers": [
            # 127·67637280 + 32 = 2^33; relu keeps the lower end at 0
            {
                "in_ch": 1,
                "out_ch": 1,
                "k": 1,
                "stride": 1,
                "pad": 0,
                "weight": [[[[67637280]]]],
                "bias": [32],
                "relu": True,
            },
            # 2^30 · 2^33 = 2^63, one past i64
            {
                "in_ch": 1,
                "out_ch": 1,
                "k": 1,
                "stride": 1,
                "pad": 0,
                "weight": [[[[1 << 30]]]],
                "bias": [0],
                "shift": 40,
            },
        ]
    }
    one_past_32 = {
        "layers": [
            # 127·16909320 + 8 = 2^31, one past i32: the weight 16909319 would fit acc32
            {
                "in_ch": 1,
                "out_ch": 1,
                "k": 1,
                "stride": 1,
                "pad": 0,
                "weight": [[[[16909320]]]],
                "bias": [8],
                "shift": 24,
            }
        ]
    }
    return {
        name: json.dumps(doc, separators=(",", ":")).encode()
        for name, doc in (
            ("int_synth_acc64_one_past.json", one_past_64),
            ("int_synth_acc32_one_weight_past.json", one_past_32),
        )
    }


def make(root: Path, full: bool = False) -> list[Path]:
    """Write the example sets under ``root``: small ones (what ``examples/`` commits), or
    with ``full`` the realistic ``int_synth`` (192→128→64→3) and a bundle with 128-channel
    hidden blocks."""
    root.mkdir(parents=True, exist_ok=True)
    channels = (192, 128, 64, 3) if full else (16, 12, 8, 3)
    written = [root / "int_synth.json"]
    written[0].write_bytes(int_synth_source(channels))
    jpegai_bundle(root / "jpegai", *((128, 128) if full else (8, 8)))
    jpegai_streams(root / "jpegai")
    written.append(root / "jpegai")
    for name, data in boundary_sets().items():
        (root / name).write_bytes(data)
        written.append(root / name)
    (root / "tiny_synth.whg1").write_bytes(write(tiny_synth()))
    written.append(root / "tiny_synth.whg1")
    return written


#: The bundled WHG1 examples, by file name under ``examples/``.
EXAMPLES = {"tiny_synth.whg1": tiny_synth}
