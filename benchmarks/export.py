"""The exported model on onnxruntime against the exact reference, on the same graphs.

1. A 3-layer stride-2 ``conv_transpose`` stack (64 channels, k4 p1, 32×32 → 256×256),
   exported through the phase-convolution rewrite.
2. A ``conv`` 3×3 64→64 on 128×128.
3. ``ConvInteger`` alone, u8×u8 against s8×s8 and u8×s8, on the conv's shape: why the
   exporter splits operands by sign into u8 digits.
4. Both graphs against onnxruntime's float32 model of them, interleaved
   (``float_peer.py``).
5. The realistic ``int_synth`` set (``examples make --full``) exported as ``waiexport
   export`` exports it, self-check included: for ``ort-cpu`` (ONNX), and for ``tosa`` and
   ``ethos-u55-128`` at ``--size 64x64``, interleaved. Vela's compile is timed apart and not
   counted; IREE's compile (cached by the model's digest) falls in the first round only,
   which is timed apart too; the ``tosa`` export's check at the model's size on IREE is
   timed apart as well (the reference's decodes in it, and the rest of it), with the export
   without it against the ONNX export. With them, the TOSA reference model's decode of that
   model at its check size against 8×8, the smallest size checked before.

For each graph: median times, onnxruntime against the reference (ratio), and the integer
multiply-accumulates per second achieved, against a peak estimated as cores × clock × 32
(one 256-bit ``vpmaddubsw`` per cycle per core, AVX2; an estimate, printed as one).

Run: ``python benchmarks/export.py [--real-sizes]`` (``--real-sizes``: part 5 alone).
"""

from __future__ import annotations

import os

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

from _graphs import CONV_MACS, STACK_MACS, conv_64, transpose_stack
from _timing import median_time, ratio
from float_peer import main as against_float
from waiexport import write
from waiexport.reference import decode
from waiexport.descriptions import target
from waiexport.targets.engines.ort import run_session
from waiexport.targets.exporter import export


def peak_macs() -> float:
    mhz = max(
        float(line.split(":")[1]) for line in open("/proc/cpuinfo") if line.startswith("cpu MHz")
    )
    return os.cpu_count() * mhz * 1e6 * 32


def compare(label: str, g, inputs, macs: int, repeat: int) -> None:
    exp = export(write(g), target("ort-cpu"))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count()
    session = ort.InferenceSession(
        exp.prepared.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )
    got = run_session(exp.graph, session, inputs, [])
    assert all((a == b).all() for a, b in zip(decode(g, inputs, []), got.values(), strict=True))
    t_ref = median_time(lambda: decode(g, inputs, []), repeat)
    t_ort = median_time(lambda: run_session(exp.graph, session, inputs, []), repeat)
    n_conv = sum(n.op_type in ("ConvInteger", "MatMulInteger") for n in exp.prepared.graph.node)
    print(
        f"{label}: onnxruntime {t_ort * 1e3:.0f} ms, reference {t_ref * 1e3:.0f} ms, "
        f"reference/onnxruntime = {t_ref / t_ort:.1f}×; {macs / t_ort / 1e9:.1f} G useful "
        f"MAC/s ({n_conv} ConvInteger / MatMulInteger nodes), peak estimate "
        f"{peak_macs() / 1e9:.0f} G MAC/s "
        f"= {macs / t_ort / peak_macs():.1%}"
    )


def conv_integer(xt: int, wt: int) -> float:
    x = helper.make_tensor_value_info("x", xt, [1, 64, 128, 128])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, [1, 64, 128, 128])
    dt = {TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8}
    w = np.random.default_rng(0).integers(0, 100, (64, 64, 3, 3)).astype(dt[wt])
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("ConvInteger", ["x", "w"], ["y"], pads=[1] * 4)],
            "c",
            [x],
            [y],
            [helper.make_tensor("w", wt, w.shape, w.tobytes(), raw=True)],
        ),
        opset_imports=[helper.make_opsetid("", 21)],
    )
    s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {"x": np.random.default_rng(1).integers(0, 100, (1, 64, 128, 128)).astype(dt[xt])}
    return median_time(lambda: s.run(None, feed), 10)


def main() -> None:
    rng = np.random.default_rng(0)
    compare(
        "conv_transpose ×3 64→64 32×32→256×256",
        transpose_stack(rng),
        [rng.integers(-128, 128, (64, 32, 32))],
        STACK_MACS,
        3,
    )
    compare(
        "conv 3×3 64→64 128×128",
        conv_64(rng),
        [rng.integers(-128, 128, (64, 128, 128))],
        CONV_MACS,
        5,
    )

    u8, s8 = TensorProto.UINT8, TensorProto.INT8
    times = {
        name: conv_integer(xt, wt)
        for name, xt, wt in (("u8×u8", u8, u8), ("s8×s8", s8, s8), ("u8×s8", u8, s8))
    }
    print(
        "ConvInteger 3×3 64→64 128×128: "
        + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in times.items())
        + f"; four u8×u8 (a signed × signed split) {4 * times['u8×u8'] * 1e3:.1f} ms"
    )
    against_float()
    real_sizes()


def real_sizes(rounds: int = 5) -> None:
    """Part 5: each export in this process (imports warm), as the command runs it."""
    import statistics
    import tempfile
    import time
    from pathlib import Path

    from click.testing import CliRunner

    from _graphs import int_synth_full
    from waiexport.cli import main as cli
    import waiexport.jobs.exporting as export_job
    import waiexport.targets.exporter as exporter
    import waiexport.targets.vela.step as vela_step

    spent: dict = {"vela": [], "at size": [], "its reference": []}
    inside: list = []  # non-empty while the check at the model's size runs

    def spy(module, name: str, into: str, when=lambda: True, mark: bool = False) -> None:
        """``module.name`` timed into ``spent[into]`` (where ``when()``)."""
        real = getattr(module, name)

        def timed(*args, **kw):
            t, counted = time.perf_counter(), when()
            inside.extend([True] if mark else [])
            try:
                return real(*args, **kw)
            finally:
                del inside[len(inside) - mark :]
                if counted:
                    spent[into].append(time.perf_counter() - t)

        setattr(module, name, timed)

    spy(vela_step, "compile_vela", "vela")
    spy(export_job, "_at_size", "at size", mark=True)
    spy(exporter, "decode", "its reference", when=lambda: bool(inside))
    folder = Path(tempfile.mkdtemp())
    (folder / "synth.whg1").write_bytes(write(int_synth_full()))
    runs = {
        "ort-cpu": ["-o", str(folder / "m.onnx")],
        "tosa 64x64": ["--target", "tosa", "--size", "64x64", "-o", str(folder / "m.tosa")],
        "ethos-u55-128 64x64": [
            "--target",
            "ethos-u55-128",
            "--size",
            "64x64",
            "-o",
            str(folder / "u55"),
        ],
    }
    times: dict = {name: [] for name in runs}
    parts: dict = {"at size": [], "its reference": []}
    vela: list = []
    for _ in range(rounds):
        for name, args in runs.items():
            for v in spent.values():
                v.clear()
            t = time.perf_counter()
            r = CliRunner().invoke(cli, ["export", str(folder / "synth.whg1"), *args])
            assert r.exit_code == 0, r.output
            times[name].append(time.perf_counter() - t - sum(spent["vela"]))
            vela += spent["vela"]
            if name.startswith("tosa"):
                for k in parts:
                    parts[k].append(sum(spent[k]))
    print(
        f"realistic int_synth exported, self-check included, {rounds} rounds interleaved, "
        f"load {os.getloadavg()[0]:.1f}:"
    )
    later = {name: t[1:] for name, t in times.items()}  # IREE's compile falls in round 1
    for name, t in times.items():
        print(
            f"  {name}: {statistics.median(t[1:]):.1f} s"
            + (
                f", {ratio(later, name, 'ort-cpu')} the ONNX export; first round {t[0]:.1f} s"
                if name != "ort-cpu"
                else ""
            )
        )
    at, ref = parts["at size"][1:], parts["its reference"][1:]
    later["tosa 64x64 without"] = [a - b for a, b in zip(later["tosa 64x64"], at)]
    print(
        f"  of tosa 64x64, its check at 64x64 on iree-cpu {statistics.median(at):.1f} s: the "
        f"reference's decodes {statistics.median(ref):.1f} s, the rest of it (IREE's worker's "
        f"start and load, its decodes, the comparisons) "
        f"{statistics.median([a - b for a, b in zip(at, ref)]):.1f} s; the export without it "
        f"{statistics.median(later['tosa 64x64 without']):.1f} s, "
        f"{ratio(later, 'tosa 64x64 without', 'ort-cpu')} the ONNX export"
    )
    print(f"  Vela's compile, apart: {statistics.median(vela):.1f} s a run")
    check_size_decode(int_synth_full())


def check_size_decode(g, rounds: int = 5) -> None:
    """The TOSA reference model's decode of ``g``'s model at its check size (for a 64×64
    model) against one at 8×8, interleaved, on the first of the self-check's inputs."""
    import statistics

    from _timing import interleaved
    from waiexport.probes import probe_inputs
    from waiexport.targets.exporter import check_size
    from waiexport.targets.tosa.format import run_tosa

    exp = export(write(g), target("tosa"))
    small = check_size(exp.graph, (64, 64))
    runs = {}
    for size in (small, (8, 8)):
        inputs, scalars = probe_inputs(exp.graph, sizes=[size])[0]
        model = exp.built([x.shape for x in inputs])
        feed = list(exp.format.feed(exp.graph, model, inputs, scalars).values())
        runs[f"{size[0]}x{size[1]}"] = lambda m=model, f=feed: run_tosa(m.native, f)
    times = interleaved(runs, rounds)
    name = f"{small[0]}x{small[1]}"
    at = {k: f"{statistics.median(v):.2f} s" for k, v in times.items()}
    print(
        f"  the TOSA reference model, one decode: at the check size {name} {at[name]}, "
        f"at 8x8 {at['8x8']}, {ratio(times, name, '8x8', 2)}"
    )


if __name__ == "__main__":
    import sys

    if "--real-sizes" in sys.argv:
        real_sizes()
    else:
        main()
